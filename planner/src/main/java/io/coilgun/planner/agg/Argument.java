package io.coilgun.planner.agg;

/**
 * An aggregation's argument for one event, read where it is (a column of the event in place, or an expression's
 * value): the aggregators of numbers take it as a primitive, without a boxed value per event.
 */
public interface Argument {
    /** A NULL argument: the aggregations skip it (COUNT(*)'s argument is never NULL). */
    boolean isNull();

    /** The value of an integral argument (not NULL). */
    long longValue();

    /** The value of a numeric argument as a double (not NULL). */
    double doubleValue();

    /** The value boxed, as {@link Aggregator#add(java.nio.ByteBuffer, int, Object)} takes it (null for NULL). */
    Object value();

    /**
     * The bytes of a NUMERIC argument read in place, in {@link io.coilgun.planner.event.NumericBytes}' form from
     * {@link #numericOffset()}; null when the argument is no column read in place ({@link #value()} then).
     */
    default byte[] numericBytes() {
        return null;
    }

    /** Where {@link #numericBytes()}' value starts. */
    default int numericOffset() {
        return -1;
    }
}
