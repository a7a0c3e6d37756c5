package io.coilgun.server.session;

import io.coilgun.pgwire.spi.PgType;
import io.coilgun.pgwire.spi.Statement;
import io.coilgun.sql.parser.ParameterMarkers;
import java.util.ArrayList;
import java.util.List;

/**
 * A catalog query answered with no rows without running it (see {@link io.coilgun.sql.query.EmptyCatalogQuery}).
 *
 * @param parameterTypes one per $n the text uses: as the client declared them, else text
 */
record EmptyCatalogStatement(String sql, List<String> columns, List<PgType> parameterTypes) implements Statement {
    EmptyCatalogStatement(String sql, List<String> columns) {
        this(sql, columns, List.of());
    }

    EmptyCatalogStatement prepared(int[] declaredOids) {
        int count = declaredOids.length;
        for (int n : ParameterMarkers.rewrite(sql).numbers()) {
            count = Math.max(count, n);
        }
        List<PgType> types = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            PgType declared = i < declaredOids.length && declaredOids[i] != 0 ? PgType.of(declaredOids[i]) : null;
            types.add(declared == null ? PgType.UNKNOWN : declared);
        }
        return new EmptyCatalogStatement(sql, columns, List.copyOf(types));
    }
}
