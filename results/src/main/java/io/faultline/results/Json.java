package io.faultline.results;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;

import java.io.IOException;
import java.nio.file.Path;

/** The one Jackson mapper of this module: pretty-printed, stable key order for maps. */
final class Json {

    static final ObjectMapper MAPPER = new ObjectMapper()
            .enable(SerializationFeature.INDENT_OUTPUT)
            .enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS)
            .disable(SerializationFeature.FAIL_ON_EMPTY_BEANS);

    private Json() {
    }

    /** Writes via a temp file and a rename, so a reader never sees half a file. */
    static void write(Path file, Object value) throws IOException {
        HtmlReport.writeAtomically(file, MAPPER.writeValueAsString(value) + "\n");
    }
}
