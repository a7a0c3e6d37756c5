package io.coilgun.cluster.catalog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class CatalogKeyTest {
    @Test
    void keysReadBackAsWritten() {
        for (CatalogKey k : new CatalogKey[] {CatalogKey.stream("payments"), CatalogKey.streamVersion("payments", 3),
            CatalogKey.streamOptions("payments"), CatalogKey.metric("card_5m"), CatalogKey.metric("odd:v2 name")}) {
            assertEquals(k, CatalogKey.parse(k.text()), k.text());
        }
        assertEquals("stream:payments:v3", CatalogKey.streamVersion("payments", 3).text());
        assertEquals("metric:card_5m", CatalogKey.metric("card_5m").text());
        assertEquals("stream:payments:options", CatalogKey.streamOptions("payments").text());
        assertThrows(IllegalArgumentException.class, () -> CatalogKey.parse("other:x"));
    }
}
