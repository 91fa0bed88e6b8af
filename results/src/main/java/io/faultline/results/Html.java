package io.faultline.results;

import java.util.Locale;

/** Small HTML helpers shared by the report, the campaign page and the store index: escaping, one stylesheet. */
final class Html {

    private Html() {
    }

    static String esc(Object o) {
        String s = String.valueOf(o);
        StringBuilder b = new StringBuilder(s.length() + 16);
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '<' -> b.append("&lt;");
                case '>' -> b.append("&gt;");
                case '&' -> b.append("&amp;");
                case '"' -> b.append("&quot;");
                case '\'' -> b.append("&#39;");
                default -> b.append(c);
            }
        }
        return b.toString();
    }

    /** Percent-encodes one path segment for an href (names are sanitised, but be safe). */
    static String href(String relativePath) {
        StringBuilder b = new StringBuilder();
        for (byte x : relativePath.replace('\\', '/').getBytes(java.nio.charset.StandardCharsets.UTF_8)) {
            char c = (char) (x & 0xff);
            if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || "-._~/#".indexOf(c) >= 0) {
                b.append(c);
            } else {
                b.append('%').append(String.format("%02X", x & 0xff));
            }
        }
        return b.toString();
    }

    /** CSS class of a verdict string: valid / invalid / unknown / incomplete / running. */
    static String verdictClass(String verdict) {
        return "v-" + String.valueOf(verdict).toLowerCase(Locale.ROOT).replaceAll("[^a-z]", "");
    }

    static String percent(double share) {
        return Double.isNaN(share) ? "–" : String.format(Locale.ROOT, "%.1f %%", share * 100);
    }

    static String number(double v) {
        return Double.isNaN(v) ? "–" : String.format(Locale.ROOT, "%.1f", v);
    }

    static String page(String title, String body) {
        return "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>" + esc(title)
                + "</title>\n<style>\n" + CSS + "</style>\n</head>\n<body>\n" + body + "\n</body>\n</html>\n";
    }

    static final String CSS = """
            body { font-family: sans-serif; margin: 1.5em auto; max-width: 1100px; color: #222; }
            h1 { font-size: 1.5em; } h2 { margin-top: 1.6em; border-bottom: 1px solid #ccc; }
            table { border-collapse: collapse; margin: .5em 0; font-size: .9em; }
            th, td { border: 1px solid #ccc; padding: .2em .5em; text-align: left; vertical-align: top; }
            th { background: #f2f2f2; }
            td.num { text-align: right; font-variant-numeric: tabular-nums; }
            code, pre, .mono { font-family: monospace; font-size: .85em; }
            pre { background: #f7f7f7; padding: .5em; overflow-x: auto; white-space: pre-wrap; }
            .banner { padding: .8em 1em; font-size: 1.4em; font-weight: bold; color: white; border-radius: 4px; }
            .v-valid { background: #2f9e44; color: white; } .v-invalid { background: #c92a2a; color: white; }
            .v-unknown { background: #e67700; color: white; } .v-incomplete { background: #868e96; color: white; }
            .v-running { background: #1971c2; color: white; }
            span.verdict { padding: .1em .5em; border-radius: 3px; font-weight: bold; }
            .partial { font-size: .7em; font-weight: normal; display: block; }
            .swatch { display: inline-block; width: 1em; height: 1em; vertical-align: middle; margin-right: .3em;
                      border: 1px solid #999; }
            tr.hit td { background: #fff3bf; } tr.gap td { text-align: center; color: #888; }
            tr:target td { outline: 2px solid #1971c2; }
            .chart { margin: 1em 0; } .chart svg { display: block; }
            .note { color: #555; font-size: .9em; }
            .zero { color: #aaa; }
            .why { display: inline-block; margin-top: .2em; border-left: 3px solid #5f3dc4; padding-left: .4em; }
            table.replica-log tr.diverge td { background: #ffe3e3; }
            #state-timeline { border: 1px solid #ddd; margin: .5em 0; }
            tr.group th { background: #e3e8ef; text-transform: capitalize; }
            tr.differs th, tr.differs td { background: #fff3bf; }
            .durability { border-left: 4px solid #6D597A; padding: .4em .8em; background: #f8f4fa; }
            """;
}
