package io.coilgun.pgwire.spi;

/**
 * A prepared statement whose result columns changed since the client was told them: Postgres' error (0A000 from
 * routine RevalidateCachedQuery), which drivers recognize and heal by preparing the statement again.
 */
public final class CachedPlanChangedException extends PgException {
    private static final long serialVersionUID = 1L;

    public CachedPlanChangedException() {
        super(SqlStates.FEATURE_NOT_SUPPORTED, "cached plan must not change result type");
    }

    @Override
    public String routine() {
        return "RevalidateCachedQuery";
    }
}
