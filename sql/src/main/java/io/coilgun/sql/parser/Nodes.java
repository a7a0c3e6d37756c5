package io.coilgun.sql.parser;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlNodeList;

final class Nodes {
    private Nodes() {}

    /** An unmodifiable copy of {@code list} as a list of {@code type}. */
    static <T extends SqlNode> List<T> typed(SqlNodeList list, Class<T> type) {
        List<T> out = new ArrayList<>(list.size());
        for (SqlNode node : list) {
            out.add(type.cast(node));
        }
        return Collections.unmodifiableList(out);
    }
}
