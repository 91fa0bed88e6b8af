package io.faultline.nemesis.toxiproxy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Toxiproxy 2.x's HTTP API (api.go): the same paths, methods, JSON shapes, status codes and error bodies
 * ({"error": message, "status": code}), so toxiproxy-java and Testcontainers cannot tell the difference.
 */
final class ApiHandler implements HttpHandler {
    static final String VERSION = "2.12.0-faultline";
    private static final ObjectMapper JSON = ToxicAttributes.JSON;

    private final ProxyRegistry registry;

    ApiHandler(ProxyRegistry registry) {
        this.registry = registry;
    }

    private record Reply(int status, String body) {
        static Reply json(int status, JsonNode node) {
            return new Reply(status, node.toString());
        }
    }

    @Override
    public void handle(HttpExchange exchange) throws IOException {
        Reply reply;
        String contentType = "application/json";
        try {
            String agent = exchange.getRequestHeaders().getFirst("User-Agent");
            if (agent != null && agent.startsWith("Mozilla/")) {
                reply = new Reply(403, "User agent not allowed\n");
                contentType = "text/plain; charset=utf-8";
            } else {
                reply = route(exchange.getRequestMethod().toUpperCase(Locale.ROOT), exchange.getRequestURI().getPath(),
                        exchange.getRequestBody());
            }
        } catch (ApiError e) {
            ObjectNode error = JSON.createObjectNode().put("error", e.getMessage()).put("status", e.status());
            reply = new Reply(e.status(), error + "\n");
            contentType = "text/plain; charset=utf-8"; // Go's http.Error
        } catch (RuntimeException e) {
            ObjectNode error = JSON.createObjectNode().put("error", String.valueOf(e.getMessage())).put("status", 500);
            reply = new Reply(500, error + "\n");
        }
        if (reply == null) {
            reply = new Reply(404, "404 page not found\n");
            contentType = "text/plain; charset=utf-8";
        }
        byte[] body = reply.body().getBytes(StandardCharsets.UTF_8);
        if (reply.status() == 204) {
            exchange.sendResponseHeaders(204, -1);
        } else {
            exchange.getResponseHeaders().set("Content-Type", contentType);
            exchange.sendResponseHeaders(reply.status(), body.length);
            exchange.getResponseBody().write(body);
        }
        exchange.close();
    }

    /** The reply for a request, or null when no route matches (404 as Go's router answers). */
    private Reply route(String method, String path, InputStream body) throws IOException {
        String[] parts = path.replaceAll("/+$", "").split("/");
        List<String> p = new ArrayList<>(List.of(parts).subList(Math.min(1, parts.length), parts.length));
        boolean update = method.equals("POST") || method.equals("PATCH");
        if (p.size() == 1 && p.get(0).equals("version") && method.equals("GET")) {
            return new Reply(200, "{\"version\": \"" + VERSION + "\"}\n");
        }
        if (p.size() == 1 && p.get(0).equals("reset") && method.equals("POST")) {
            registry.reset();
            return new Reply(204, "");
        }
        if (p.size() == 1 && p.get(0).equals("populate") && method.equals("POST")) return populate(read(body));
        if (p.isEmpty() || !p.get(0).equals("proxies")) return null;
        if (p.size() == 1) {
            if (method.equals("GET")) {
                ObjectNode all = JSON.createObjectNode();
                for (TcpProxy proxy : registry.all()) all.set(proxy.name(), proxyJson(proxy.view()));
                return Reply.json(200, all);
            }
            if (method.equals("POST")) return createProxy(read(body));
            return null;
        }
        String name = p.get(1);
        if (p.size() == 2) {
            if (method.equals("GET")) return Reply.json(200, proxyJson(registry.get(name).view()));
            if (update) return updateProxy(registry.get(name), read(body));
            if (method.equals("DELETE")) {
                registry.delete(name);
                return new Reply(204, "");
            }
            return null;
        }
        if (!p.get(2).equals("toxics") || p.size() > 4) return null;
        if (p.size() == 3) {
            if (method.equals("GET")) {
                ArrayNode list = JSON.createArrayNode();
                registry.get(name).toxics().forEach(t -> list.add(JSON.valueToTree(t)));
                return Reply.json(200, list);
            }
            if (method.equals("POST")) return createToxic(registry.get(name), read(body));
            return null;
        }
        String toxic = p.get(3);
        if (method.equals("GET")) return Reply.json(200, JSON.valueToTree(registry.get(name).toxic(toxic)));
        if (update) return updateToxic(registry.get(name), toxic, read(body));
        if (method.equals("DELETE")) {
            registry.get(name).removeToxic(toxic);
            return new Reply(204, "");
        }
        return null;
    }

    private static JsonNode read(InputStream body) throws IOException {
        byte[] bytes = body.readAllBytes();
        try {
            JsonNode node = JSON.readTree(bytes);
            if (node == null || node.isMissingNode()) throw ApiError.badBody("EOF");
            return node;
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw ApiError.badBody(e.getOriginalMessage());
        }
    }

    /** A string field, or the default when absent; 400 when present with another type. */
    private static String text(JsonNode node, String field, String otherwise) {
        JsonNode v = node.get(field);
        if (v == null || v.isNull()) return otherwise;
        if (!v.isTextual()) throw ApiError.badBody("field " + field + " must be a string");
        return v.asText();
    }

    private static boolean bool(JsonNode node, String field, boolean otherwise) {
        JsonNode v = node.get(field);
        if (v == null || v.isNull()) return otherwise;
        if (!v.isBoolean()) throw ApiError.badBody("field " + field + " must be a boolean");
        return v.asBoolean();
    }

    private static float number(JsonNode node, String field, float otherwise) {
        JsonNode v = node.get(field);
        if (v == null || v.isNull()) return otherwise;
        if (!v.isNumber()) throw ApiError.badBody("field " + field + " must be a number");
        return v.floatValue();
    }

    private static JsonNode object(JsonNode node) {
        if (!node.isObject()) throw ApiError.badBody("expected a JSON object");
        return node;
    }

    private static ObjectNode proxyJson(TcpProxy.ProxyView v) {
        ObjectNode o = JSON.createObjectNode().put("name", v.name()).put("listen", v.listen())
                .put("upstream", v.upstream()).put("enabled", v.enabled());
        ArrayNode toxics = o.putArray("toxics");
        v.toxics().forEach(t -> toxics.add(JSON.valueToTree(t)));
        return o;
    }

    private Reply createProxy(JsonNode body) {
        object(body);
        String name = text(body, "name", "");
        String upstream = text(body, "upstream", "");
        String listen = text(body, "listen", "");
        boolean enabled = bool(body, "enabled", true);
        if (name.isEmpty()) throw ApiError.missingField("name");
        if (upstream.isEmpty()) throw ApiError.missingField("upstream");
        return Reply.json(201, proxyJson(registry.create(name, listen, upstream, enabled).view()));
    }

    private Reply populate(JsonNode body) {
        if (!body.isArray()) throw ApiError.badBody("expected a JSON array of proxies");
        for (int i = 0; i < body.size(); i++) {
            object(body.get(i));
            if (text(body.get(i), "name", "").isEmpty()) throw ApiError.missingField("name at proxy " + (i + 1));
            if (text(body.get(i), "upstream", "").isEmpty()) throw ApiError.missingField("upstream at proxy " + (i + 1));
        }
        ObjectNode out = JSON.createObjectNode();
        ArrayNode proxies = JSON.createArrayNode();
        int status = 201;
        for (JsonNode p : body) {
            try {
                TcpProxy proxy = registry.createOrReplace(text(p, "name", ""), text(p, "listen", ""), text(p, "upstream", ""),
                        bool(p, "enabled", true));
                proxies.add(proxyJson(proxy.view()));
            } catch (ApiError e) {
                out.put("error", e.getMessage()).put("status", e.status());
                status = e.status();
                break; // Toxiproxy stops at the first failure and reports what it made so far
            }
        }
        out.set("proxies", proxies);
        return Reply.json(status, out);
    }

    private Reply updateProxy(TcpProxy proxy, JsonNode body) {
        object(body);
        var now = proxy.view();
        proxy.update(text(body, "listen", now.listen()), text(body, "upstream", now.upstream()),
                bool(body, "enabled", now.enabled()));
        return Reply.json(200, proxyJson(proxy.view()));
    }

    private Reply createToxic(TcpProxy proxy, JsonNode body) {
        object(body);
        String stream = text(body, "stream", "downstream").toLowerCase(Locale.ROOT);
        if (!stream.equals("upstream") && !stream.equals("downstream")) throw ApiError.invalidStream();
        String type = text(body, "type", "");
        String given = text(body, "name", "");
        String name = given.isEmpty() ? type + "_" + stream : given;
        float toxicity = number(body, "toxicity", 1.0f);
        if (ToxicAttributes.typeClass(type) == null) throw ApiError.invalidType();
        if (proxy.toxics().stream().anyMatch(t -> t.name().equals(name))) throw ApiError.toxicExists();
        ToxicSpec spec = new ToxicSpec(name, type, stream, toxicity, ToxicAttributes.parse(type, body.get("attributes")));
        proxy.addToxic(spec);
        return Reply.json(200, JSON.valueToTree(spec));
    }

    private Reply updateToxic(TcpProxy proxy, String name, JsonNode body) {
        object(body);
        ToxicSpec old = proxy.toxic(name);
        ToxicSpec updated = old.with(number(body, "toxicity", old.toxicity()),
                old.attributes().merge(old.type(), body.get("attributes")));
        return Reply.json(200, JSON.valueToTree(proxy.updateToxic(updated)));
    }
}
