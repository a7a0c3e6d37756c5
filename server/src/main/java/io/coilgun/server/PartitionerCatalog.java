package io.coilgun.server;

import io.coilgun.cluster.ClusterNode;
import io.coilgun.cluster.catalog.CatalogKey;
import io.coilgun.cluster.catalog.CatalogLog;
import io.coilgun.planner.error.CoilgunException;
import io.coilgun.planner.error.SqlState;
import io.coilgun.planner.model.Catalog;
import io.coilgun.planner.model.StreamDef;
import io.coilgun.server.query.DeciderFills;
import io.coilgun.sql.compile.AlterStreamStatement;
import io.coilgun.sql.compile.CompiledStatement;
import io.coilgun.sql.compile.SqlStatement;
import io.coilgun.sql.compile.StatementCompiler;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.ToLongBiFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The catalog's side of {@code ALTER STREAM … ADD | DROP PARTITION BY}: each change is a record of its own ({@link
 * CatalogKey#streamPartitioner}, replayed in the order written), applied to the node's catalog and tasks; and whether
 * an added partitioner is filled yet, which a metric on it waits for (its tasks must hold the stream's history before
 * a metric there starts or fills itself from it).
 */
final class PartitionerCatalog {
    private static final Logger LOG = LoggerFactory.getLogger(PartitionerCatalog.class);

    private final Catalog catalog;
    private final ClusterNode cluster;
    /** The partitioner records of each stream (tombstoned with the stream). */
    private final Map<String, Set<Integer>> records = new ConcurrentHashMap<>();
    /**
     * The streams partitioned by one field that are gaining a decider: the number of the partitioner record that
     * began it, until the record of its end ({@link CatalogKey#streamConverted}).
     */
    private final Map<String, Integer> conversions = new ConcurrentHashMap<>();

    PartitionerCatalog(Catalog catalog, ClusterNode cluster) {
        this.catalog = catalog;
        this.cluster = cluster;
    }

    /** A record read when the node starts: the change is applied to the catalog (tasks are deployed after). */
    void recovered(CatalogLog.Entry entry, StatementCompiler compiler) {
        CatalogKey key = entry.key();
        if (key.kind() == CatalogKey.Kind.STREAM_CONVERTED) {
            if (entry.ddl() != null) {
                conversions.remove(key.name());
            }
            return;
        }
        if (entry.ddl() == null) {
            forget(key);
            return;
        }
        note(key);
        AlterStreamStatement as = compile(entry.ddl(), compiler);
        if (as != null) {
            boolean converts = converts(as.stream());
            catalog.addStream(as.stream());
            if (converts) {
                conversions.put(key.name(), key.version());
            }
        }
    }

    /**
     * Once the node deployed its streams: a conversion that had not ended when it stopped goes on here (its
     * statements wait, its partitions are cut after what it publishes: nothing, yet).
     */
    void resumeConversions() {
        for (Map.Entry<String, Integer> c : conversions.entrySet()) {
            catalog.stream(c.getKey()).ifPresent(s -> cluster.beginConversion(s, c.getValue()));
        }
    }

    /** Whether {@code altered} gives a stream partitioned by one field its decider. */
    private boolean converts(StreamDef altered) {
        StreamDef before = catalog.stream(altered.name()).orElse(null);
        return before != null && !before.decided() && altered.decided();
    }

    /**
     * The stream's decider has the history of its tasks (its active copy here said so): the end of the conversion is
     * written ({@code append}; another copy may write it too, harmlessly) and applied here. On the DDL thread.
     */
    void seeded(String stream, ToLongBiFunction<CatalogKey, String> append) {
        Integer number = conversions.get(stream);
        if (number == null) {
            return;
        }
        append.applyAsLong(CatalogKey.streamConverted(stream), Integer.toString(number));
        converted(stream);
    }

    /** The end of a conversion, written by another node. */
    void followedConverted(CatalogKey key, String text) {
        if (text != null) {
            converted(key.name());
        }
    }

    private void converted(String stream) {
        if (conversions.remove(stream) != null) {
            cluster.conversions().end(stream);
            LOG.info("stream={} has its decider: its tasks' history is in it", stream);
        }
    }

    /** Whether the stream is still gaining its decider (a conversion began and did not end). */
    boolean converting(String stream) {
        return conversions.containsKey(stream);
    }

    /** A record another node wrote: the same change here, catalog and tasks. */
    void followed(CatalogKey key, String text, StatementCompiler compiler) {
        if (text == null) {
            forget(key);
            return;
        }
        note(key);
        AlterStreamStatement as = compile(text, compiler);
        if (as != null) {
            apply(key, as.stream(), as.partitioner(), as.dropsPartitioner());
        }
    }

    /**
     * This node's ALTER STREAM … ADD | DROP PARTITION BY, on the DDL thread: made again on the stream as it is now (a
     * change since the statement was compiled is kept), written ({@code append}), then applied here. Returns the
     * record's offset.
     */
    long alter(StreamDef current, AlterStreamStatement as, ToLongBiFunction<CatalogKey, String> append) {
        String field = as.partitioner();
        boolean has = current.partitionBy().contains(field);
        if (as.dropsPartitioner() ? !has : has) {
            throw new CoilgunException(SqlState.QUERY_CANCELED, "stream \"" + current.name() + "\" was altered "
                    + "concurrently; run the statement again");
        }
        StreamDef altered = as.dropsPartitioner() ? current.withoutPartitioner(field)
                : current.withPartitioner(field, as.stream().partitions(field));
        CatalogKey key = CatalogKey.streamPartitioner(current.name(), ThreadLocalRandom.current().nextInt(1,
                Integer.MAX_VALUE));
        long offset = append.applyAsLong(key, as.ddl());
        note(key);
        apply(key, altered, field, as.dropsPartitioner());
        return offset;
    }

    /** The keys of the stream's partitioner records, for its DROP. */
    List<CatalogKey> recordsOf(String stream) {
        List<CatalogKey> keys = new ArrayList<>();
        for (int n : records.getOrDefault(stream, Set.of())) {
            keys.add(CatalogKey.streamPartitioner(stream, n));
        }
        records.remove(stream);
        keys.add(CatalogKey.streamConverted(stream)); // a tombstone of a key never written is harmless
        converted(stream); // its waiting statements go on, and find it dropped
        return keys;
    }

    /**
     * Refuses (55000) a metric on an added partitioner that is not filled yet, or whose fill this node cannot see
     * (the decider's active copy said nothing yet, or nothing of this partitioner).
     */
    void checkFilled(StreamDef stream, String field) {
        if (!stream.addedPartitionBy().contains(field)) {
            return;
        }
        List<String> fills = DeciderFills.progress(cluster, stream);
        String entry = fills == null ? null : fills.stream().filter(f -> f.startsWith("+" + field + ":")).findFirst()
                .orElse(null);
        // live only when the decider says so: a report from before the ALTER does not name the partitioner at all
        if (fills == null || !fills.contains("=" + field)) {
            String progress = entry == null ? "" : " (" + entry.split(":")[1] + " of about " + entry.split(":")[2]
                    + " events forwarded)";
            throw new CoilgunException(SqlState.OBJECT_NOT_IN_PREREQUISITE_STATE, "partition_by field \"" + field
                    + "\" of stream \"" + stream.name() + "\" is still being filled from the stream's history"
                    + progress + "; a metric on it can be created once it is done (coilgun.partitioners)");
        }
    }

    private void apply(CatalogKey key, StreamDef altered, String field, boolean drop) {
        boolean converts = converts(altered);
        if (converts) {
            cluster.conversions().pauses().pause(altered.name()); // before a statement sees the stream with its decider
        }
        catalog.addStream(altered);
        if (drop) {
            cluster.dropPartitionerLocally(altered, field);
            return;
        }
        cluster.addPartitioner(altered, field);
        if (converts) {
            conversions.put(altered.name(), key.version());
            cluster.beginConversion(altered, key.version());
        }
    }

    private AlterStreamStatement compile(String ddl, StatementCompiler compiler) {
        try {
            for (SqlStatement parsed : SqlStatement.parse(ddl)) {
                CompiledStatement st = compiler.compile(parsed);
                if (st instanceof AlterStreamStatement as && as.partitioner() != null) {
                    return as;
                }
            }
        } catch (CoilgunException e) {
            // a change that no longer fits (two ALTERs at once on two nodes): the first one written holds
            LOG.warn("catalog record not applied: {}: {}", ddl, e.getMessage());
        }
        return null;
    }

    private void note(CatalogKey key) {
        records.computeIfAbsent(key.name(), k -> ConcurrentHashMap.newKeySet()).add(key.version());
    }

    private void forget(CatalogKey key) {
        Set<Integer> numbers = records.get(key.name());
        if (numbers != null) {
            numbers.remove(key.version());
        }
    }
}
