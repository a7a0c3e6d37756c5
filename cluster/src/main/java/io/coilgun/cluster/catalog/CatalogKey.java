package io.coilgun.cluster.catalog;

/**
 * The key of a record of the catalog topic: {@code stream:<name>} (its CREATE STREAM), {@code stream:<name>:v<n>}
 * (its ALTER STREAM to schema version n), {@code stream:<name>:options} (its latest ALTER STREAM … SET),
 * {@code stream:<name>:p<n>} (an ALTER STREAM … ADD or DROP PARTITION BY; n is random, so no record of one replaces
 * another's and they replay in the order written), {@code stream:<name>:converted} (a stream partitioned by one field
 * that gained a partitioner has its decider: the value is the partitioner record's number) or
 * {@code metric:<name>} (its CREATE METRIC) or {@code sink:<name>} (its CREATE SINK); {@code role:<name>} (a role as
 * it is now, as a CREATE ROLE with its SCRAM verifier), {@code grant:<role>:<object>} (what the role holds on the
 * object: e.g. {@code SELECT,INSERT}) and {@code owner:<object>} (the role owning a stream, metric or sink). A
 * tombstone of a key is its DROP (or REVOKE of all).
 *
 * @param kind what the record defines
 * @param name the stream's or metric's name
 * @param version the schema version of an ALTER STREAM … ADD COLUMN record, a partitioner record's number, else 0
 */
public record CatalogKey(Kind kind, String name, int version) {
    /** What a catalog record defines. */
    public enum Kind { STREAM, STREAM_VERSION, STREAM_OPTIONS, STREAM_PARTITIONER, STREAM_CONVERTED, METRIC, SINK, ROLE, GRANT, OWNER }

    private static final String STREAM = "stream:";
    private static final String METRIC = "metric:";
    private static final String SINK = "sink:";
    private static final String ROLE = "role:";
    private static final String GRANT = "grant:";
    private static final String OWNER = "owner:";
    private static final String VERSION = ":v";
    private static final String OPTIONS = ":options";
    private static final String PARTITIONER = ":p";
    private static final String CONVERTED = ":converted";

    public static CatalogKey stream(String name) {
        return new CatalogKey(Kind.STREAM, name, 0);
    }

    public static CatalogKey streamVersion(String name, int version) {
        return new CatalogKey(Kind.STREAM_VERSION, name, version);
    }

    public static CatalogKey streamOptions(String name) {
        return new CatalogKey(Kind.STREAM_OPTIONS, name, 0);
    }

    public static CatalogKey streamPartitioner(String name, int number) {
        return new CatalogKey(Kind.STREAM_PARTITIONER, name, number);
    }

    public static CatalogKey streamConverted(String name) {
        return new CatalogKey(Kind.STREAM_CONVERTED, name, 0);
    }

    public static CatalogKey metric(String name) {
        return new CatalogKey(Kind.METRIC, name, 0);
    }

    public static CatalogKey sink(String name) {
        return new CatalogKey(Kind.SINK, name, 0);
    }

    public static CatalogKey role(String name) {
        return new CatalogKey(Kind.ROLE, name, 0);
    }

    /** What {@code role} holds on {@code object}: the name is {@code <role>:<object>} (a role name has no ':'). */
    public static CatalogKey grant(String role, String object) {
        return new CatalogKey(Kind.GRANT, role + ":" + object, 0);
    }

    public static CatalogKey owner(String object) {
        return new CatalogKey(Kind.OWNER, object, 0);
    }

    /** A grant key's role. */
    public String grantee() {
        return name.substring(0, name.indexOf(':'));
    }

    /** A grant key's object. */
    public String grantedObject() {
        return name.substring(name.indexOf(':') + 1);
    }

    /** The key as the topic holds it. */
    public String text() {
        return switch (kind) {
            case STREAM -> STREAM + name;
            case STREAM_VERSION -> STREAM + name + VERSION + version;
            case STREAM_OPTIONS -> STREAM + name + OPTIONS;
            case STREAM_PARTITIONER -> STREAM + name + PARTITIONER + version;
            case STREAM_CONVERTED -> STREAM + name + CONVERTED;
            case METRIC -> METRIC + name;
            case SINK -> SINK + name;
            case ROLE -> ROLE + name;
            case GRANT -> GRANT + name;
            case OWNER -> OWNER + name;
        };
    }

    /** A key read from the topic. Names are letters, digits and underscores, so ':' only separates. */
    public static CatalogKey parse(String text) {
        if (text.startsWith(METRIC)) {
            return metric(text.substring(METRIC.length()));
        }
        if (text.startsWith(SINK)) {
            return sink(text.substring(SINK.length()));
        }
        if (text.startsWith(ROLE)) {
            return role(text.substring(ROLE.length()));
        }
        if (text.startsWith(GRANT)) {
            return new CatalogKey(Kind.GRANT, text.substring(GRANT.length()), 0);
        }
        if (text.startsWith(OWNER)) {
            return owner(text.substring(OWNER.length()));
        }
        if (!text.startsWith(STREAM)) {
            throw new IllegalArgumentException("not a catalog key: " + text);
        }
        String rest = text.substring(STREAM.length());
        if (rest.endsWith(OPTIONS)) {
            return streamOptions(rest.substring(0, rest.length() - OPTIONS.length()));
        }
        if (rest.endsWith(CONVERTED)) {
            return streamConverted(rest.substring(0, rest.length() - CONVERTED.length()));
        }
        int p = rest.indexOf(PARTITIONER);
        if (p >= 0) {
            return streamPartitioner(rest.substring(0, p), Integer.parseInt(rest.substring(p + 2)));
        }
        int v = rest.indexOf(VERSION);
        return v < 0 ? stream(rest) : streamVersion(rest.substring(0, v), Integer.parseInt(rest.substring(v + 2)));
    }

    @Override
    public String toString() {
        return text();
    }
}
