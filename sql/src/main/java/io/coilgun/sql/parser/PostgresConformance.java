package io.coilgun.sql.parser;

import org.apache.calcite.sql.validate.SqlConformanceEnum;
import org.apache.calcite.sql.validate.SqlDelegatingConformance;

/**
 * Calcite's most lenient conformance ({@link SqlConformanceEnum#BABEL}), less what a Postgres user would be
 * surprised to see accepted: {@code INSERT ... VALUE (...)} (MySQL's synonym of VALUES) is a syntax error.
 */
public final class PostgresConformance extends SqlDelegatingConformance {
    public static final PostgresConformance INSTANCE = new PostgresConformance();

    private PostgresConformance() {
        super(SqlConformanceEnum.BABEL);
    }

    /** Postgres' {@code current_schema()} and {@code current_catalog}: niladic functions with parentheses. */
    @Override
    public boolean allowNiladicParentheses() {
        return true;
    }

    @Override
    public boolean isValueAllowed() {
        return false;
    }
}
