package io.coilgun.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coilgun.cluster.ingest.TaskClock;
import io.coilgun.planner.model.AggregationDef;
import io.coilgun.planner.model.AggregationKind;
import io.coilgun.planner.model.ColumnType;
import io.coilgun.planner.model.Durations;
import io.coilgun.planner.model.LatePolicy;
import io.coilgun.planner.model.MetricDef;
import io.coilgun.planner.model.StreamColumn;
import io.coilgun.planner.model.StreamDef;
import io.coilgun.planner.model.WindowSpec;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class DeploymentsTest {
    static final String TOPIC = "coilgun.stream.p.card";
    static final StreamDef STREAM = new StreamDef("p", List.of(new StreamColumn("id", ColumnType.BIGINT, false),
            new StreamColumn("ts", ColumnType.TIMESTAMP, false), new StreamColumn("card", ColumnType.VARCHAR, false)),
            1, 0, List.of("card"), 2, 10 * Durations.SECOND, LatePolicy.REJECT, "");

    static MetricDef metric(String name) {
        return new MetricDef(name, "p", List.of(new AggregationDef(AggregationKind.COUNT_STAR, -1, "n",
                ColumnType.BIGINT)), List.of(2), "card", WindowSpec.sliding(5 * Durations.MINUTE), "");
    }

    static Deployments withStream(MetricDef... metrics) {
        Deployments d = new Deployments();
        d.deploy(TOPIC, new Deployments.Deployed(STREAM, List.of(metrics), new TaskClock[2]));
        return d;
    }

    @Test
    void aMarkerStartsTheMetricOfItsVersionOnly() {
        Deployments d = withStream();
        MetricDef m = metric("m");
        d.addMetric(TOPIC, m, 42);
        assertEquals("m@42", d.marker("m"));
        assertSame(m, d.startedBy(TOPIC, "m@42"));
        assertNull(d.startedBy(TOPIC, "m@41"), "a marker of an earlier metric of the same name starts nothing");
        assertSame(m, d.startedBy(TOPIC, "m@-1"), "a marker of an unknown version starts the metric deployed");
        assertSame(m, d.startedBy(TOPIC, "m"), "a marker without a version too");
        assertNull(d.startedBy(TOPIC, "other@42"), "a metric not deployed here");
        assertNull(d.startedBy("coilgun.stream.q.card", "m@42"), "a topic not deployed here");
    }

    @Test
    void aMetricOfUnknownVersionIsStartedByAnyMarker() {
        Deployments d = withStream(metric("m")); // deployed at start-up, before its version was noted
        assertEquals("m@-1", d.marker("m"));
        assertTrue(d.startedBy(TOPIC, "m@7") != null);
        d.metricVersion("m", 7);
        assertTrue(d.startedBy(TOPIC, "m@7") != null);
        assertNull(d.startedBy(TOPIC, "m@6"));
    }

    @Test
    void addingAgainReplacesAndDroppingForgets() {
        Deployments d = withStream(metric("a"));
        MetricDef b1 = metric("b");
        MetricDef b2 = metric("b");
        d.addMetric(TOPIC, b1, 1);
        d.addMetric(TOPIC, b2, 2);
        assertEquals(List.of("a", "b"), d.get(TOPIC).metrics().stream().map(MetricDef::name).toList());
        assertSame(b2, d.metric(TOPIC, "b"));
        d.dropMetric(TOPIC, "b");
        assertNull(d.metric(TOPIC, "b"));
        assertEquals("b@-1", d.marker("b"), "its version is forgotten");
        assertEquals(List.of("a"), d.get(TOPIC).metrics().stream().map(MetricDef::name).toList());
    }

    @Test
    void streamsAlterAndGo() {
        Deployments d = withStream(metric("a"));
        assertEquals(Set.of(TOPIC), d.topics());
        assertEquals(1, d.copies(TOPIC), "the stream's replicas");
        assertEquals(1, d.copies("coilgun.stream.q.card"), "one copy where nothing is deployed");
        StreamDef altered = STREAM.withReplicas(3);
        d.alter(altered);
        assertSame(altered, d.stream(TOPIC));
        assertEquals(3, d.copies(TOPIC));
        assertEquals(List.of("a"), d.get(TOPIC).metrics().stream().map(MetricDef::name).toList(), "metrics kept");
        d.remove(TOPIC);
        assertFalse(d.contains(TOPIC));
        assertNull(d.stream(TOPIC));
        assertEquals(Set.of(), d.topics());
    }
}
