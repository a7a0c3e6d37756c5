package io.coilgun.cluster.unit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.consumer.OffsetResetStrategy;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.junit.jupiter.api.Test;

/** A unit hears the brokers through its consumer's byte count, sampled by its thread or by whoever asks. */
class BrokerHearingTest {
    static final class Bytes implements Metric {
        volatile double total;

        @Override
        public MetricName metricName() {
            return new MetricName("incoming-byte-total", "consumer-metrics", "", Map.of());
        }

        @Override
        public Object metricValue() {
            return total;
        }
    }

    @Test
    void bytesThatArriveWhileTheUnitIsBusyAreHeardByWhoeverAsks() throws Exception {
        Bytes bytes = new Bytes();
        MockConsumer<byte[], byte[]> consumer = new MockConsumer<>(OffsetResetStrategy.EARLIEST) {
            @Override
            public synchronized Map<MetricName, ? extends Metric> metrics() {
                return Map.of(bytes.metricName(), bytes);
            }
        };
        BrokerHearing hearing = new BrokerHearing();
        assertEquals(-1, hearing.silenceMs(), "before the unit looked at its consumer");
        bytes.total = 100;
        hearing.sample(consumer, System.nanoTime());
        Thread.sleep(300);
        assertTrue(hearing.silenceMs() >= 250, "nothing since");
        bytes.total = 200; // the consumer's network thread heard a broker; the unit's thread is busy elsewhere
        assertTrue(hearing.silenceMs() < 100, "heard when asked");
    }
}
