package io.coilgun.sql.query;

import org.apache.calcite.prepare.CalcitePrepareImpl;
import org.apache.calcite.sql2rel.SqlRexConvertletTable;

/** Calcite's statement preparation with Postgres' text casts ({@link PgTextCasts}). */
final class PgPrepare extends CalcitePrepareImpl {
    @Override
    protected SqlRexConvertletTable createConvertletTable() {
        return PgTextCasts.INSTANCE;
    }
}
