package io.coilgun.sql.query;

import io.coilgun.sql.compile.ValueConverter;
import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.List;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.schema.impl.ScalarFunctionImpl;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlOperator;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.apache.calcite.sql.type.OperandTypes;
import org.apache.calcite.sql.type.ReturnTypes;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.calcite.sql.type.SqlTypeTransforms;
import org.apache.calcite.sql.validate.SqlUserDefinedFunction;
import org.apache.calcite.sql2rel.SqlRexContext;
import org.apache.calcite.sql2rel.SqlRexConvertlet;
import org.apache.calcite.sql2rel.SqlRexConvertletTable;
import org.apache.calcite.sql2rel.StandardConvertletTable;

/**
 * Casts to text as Postgres prints the value where Calcite's CAST … AS VARCHAR differs: a boolean is {@code true} /
 * {@code false} (Calcite: TRUE), a timestamp keeps its fraction of a second, trailing zeros dropped (Calcite: whole
 * seconds). Every other conversion is Calcite's own.
 */
public final class PgTextCasts implements SqlRexConvertletTable {
    static final PgTextCasts INSTANCE = new PgTextCasts();

    private static final SqlOperator BOOLEAN_TEXT = function("pg_boolean_text");
    private static final SqlOperator TIMESTAMP_TEXT = function("pg_timestamp_text");

    private PgTextCasts() {
    }

    private static SqlOperator function(String name) {
        Method method = Arrays.stream(PgTextCasts.class.getMethods())
                .filter(m -> m.getName().equals(name)).findFirst().orElseThrow();
        return new SqlUserDefinedFunction(new SqlIdentifier(name, SqlParserPos.ZERO),
                ReturnTypes.explicit(SqlTypeName.VARCHAR).andThen(SqlTypeTransforms
                        .TO_NULLABLE), null, OperandTypes.ANY, List.of(), ScalarFunctionImpl.create(method));
    }

    @Override
    public SqlRexConvertlet get(SqlCall call) {
        SqlRexConvertlet standard = StandardConvertletTable.INSTANCE.get(call);
        if (call.getKind() != SqlKind.CAST) {
            return standard;
        }
        return (cx, c) -> {
            RelDataType target = cx.getValidator().getValidatedNodeType(c);
            if (target.getSqlTypeName() == SqlTypeName.VARCHAR || target.getSqlTypeName() == SqlTypeName.CHAR) {
                RexNode operand = cx.convertExpression(c.operand(0));
                SqlTypeName from = operand.getType().getSqlTypeName();
                RexBuilder rex = cx.getRexBuilder();
                if (from == SqlTypeName.BOOLEAN) {
                    return rex.makeCast(target, rex.makeCall(BOOLEAN_TEXT, operand));
                }
                if (from == SqlTypeName.TIMESTAMP) {
                    return rex.makeCast(target, rex.makeCall(TIMESTAMP_TEXT, operand));
                }
            }
            return standard.convertCall(cx, c);
        };
    }

    /** A boolean as Postgres' text. */
    public static String pg_boolean_text(Boolean b) {
        return b == null ? null : b ? "true" : "false";
    }

    /** A timestamp (Calcite's milliseconds) as Postgres' text: {@code 2026-01-02 10:00:00.5}. */
    public static String pg_timestamp_text(Long millis) {
        return millis == null ? null : ValueConverter.formatMicros(millis * 1000L);
    }
}
