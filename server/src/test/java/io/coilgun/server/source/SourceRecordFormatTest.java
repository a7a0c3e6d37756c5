package io.coilgun.server.source;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.coilgun.planner.model.ColumnType;
import io.coilgun.planner.model.LatePolicy;
import io.coilgun.planner.model.StreamColumn;
import io.coilgun.planner.model.StreamDef;
import io.coilgun.planner.model.StreamSource.Format;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class SourceRecordFormatTest {
    private static final StreamDef PAY = new StreamDef("pay", List.of(new StreamColumn("id", ColumnType.BIGINT, false),
            new StreamColumn("ts", ColumnType.TIMESTAMP, false), new StreamColumn("card", ColumnType.VARCHAR, false),
            new StreamColumn("amount", ColumnType.DOUBLE, false)), 1, 0, List.of("card"), 4, 0, LatePolicy.REJECT, "");

    private static String[] fields(Format format, String value) {
        return SourceRecordFormat.fields(PAY, format, value.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void jsonFieldsByColumnNameInAnyCase() {
        assertArrayEquals(new String[] {"7", "2026-03-01T08:00:00.250", "c1", "12.5"},
                fields(Format.JSON, "{\"ID\": 7, \"ts\": 1772352000250, \"card\": \"c1\", \"amount\": 12.5, \"x\": 1}"));
        assertArrayEquals(new String[] {"7", "2026-03-01 08:00:00", null, "{\"a\":[1]}"},
                fields(Format.JSON, "{\"id\": \"7\", \"ts\": \"2026-03-01 08:00:00\", \"card\": null, "
                        + "\"amount\": {\"a\": [1]}}"));
        assertThrows(SourceRecordFormat.BadRecordException.class, () -> fields(Format.JSON, "[1, 2]"));
        assertThrows(SourceRecordFormat.BadRecordException.class, () -> fields(Format.JSON, "{\"id\": "));
        assertThrows(SourceRecordFormat.BadRecordException.class,
                () -> SourceRecordFormat.fields(PAY, Format.JSON, null));
    }

    @Test
    void csvLinesOfEveryColumn() {
        assertArrayEquals(new String[] {"7", "2026-03-01 08:00:00", "c,1 \"x\"", null},
                fields(Format.CSV, "7,2026-03-01 08:00:00,\"c,1 \"\"x\"\"\",\n"));
        assertArrayEquals(new String[] {"7", "t", "", "1"}, fields(Format.CSV, "7,t,\"\",1"));
        assertThrows(SourceRecordFormat.BadRecordException.class, () -> fields(Format.CSV, "7,t,c"));
        assertThrows(SourceRecordFormat.BadRecordException.class, () -> fields(Format.CSV, "7,t,\"c,1"));
    }
}
