package io.coilgun.server.boot;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class WarmUpTest {
    @Test
    void theTrainingStreamIsNamedAfterTheNodeInAPlainName() {
        assertEquals("coilgun_warmup_node_1", WarmUp.streamName("node-1"));
        assertEquals("coilgun_warmup_n1_eu_west", WarmUp.streamName("N1.eu-west"));
    }
}
