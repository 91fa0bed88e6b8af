package io.faultline.nemesis.toxiproxy;

/** An API failure with the HTTP status and message Toxiproxy answers with ({"error": ..., "status": ...}). */
public final class ApiError extends RuntimeException {
    private final int status;

    public ApiError(int status, String message) {
        super(message);
        this.status = status;
    }

    public int status() {
        return status;
    }

    static ApiError badBody(String detail) {
        return new ApiError(400, "bad request body: " + detail);
    }

    static ApiError missingField(String field) {
        return new ApiError(400, "missing required field: " + field);
    }

    static ApiError proxyNotFound() {
        return new ApiError(404, "proxy not found");
    }

    static ApiError proxyExists() {
        return new ApiError(409, "proxy already exists");
    }

    static ApiError toxicNotFound() {
        return new ApiError(404, "toxic not found");
    }

    static ApiError toxicExists() {
        return new ApiError(409, "toxic already exists");
    }

    static ApiError invalidStream() {
        return new ApiError(400, "stream was invalid, can be either upstream or downstream");
    }

    static ApiError invalidType() {
        return new ApiError(400, "invalid toxic type");
    }
}
