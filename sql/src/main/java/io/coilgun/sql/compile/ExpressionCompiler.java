package io.coilgun.sql.compile;

import io.coilgun.planner.error.CoilgunException;
import io.coilgun.planner.error.SqlState;
import io.coilgun.planner.expr.Variables;
import io.coilgun.planner.model.ColumnType;
import io.coilgun.planner.model.StreamColumn;
import io.coilgun.planner.model.StreamDef;
import io.coilgun.sql.parser.CoilgunParser;
import io.coilgun.sql.parser.PostgresConformance;
import java.math.BigDecimal;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.regex.Pattern;
import org.apache.calcite.config.CalciteConnectionConfigImpl;
import org.apache.calcite.config.CalciteConnectionProperty;
import org.apache.calcite.jdbc.CalciteSchema;
import org.apache.calcite.jdbc.JavaTypeFactoryImpl;
import org.apache.calcite.prepare.CalciteCatalogReader;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.runtime.CalciteContextException;
import org.apache.calcite.schema.impl.AbstractTable;
import org.apache.calcite.sql.SqlBasicCall;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlCharStringLiteral;
import org.apache.calcite.sql.SqlDataTypeSpec;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlLiteral;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlNodeList;
import org.apache.calcite.sql.SqlNumericLiteral;
import org.apache.calcite.sql.SqlSelect;
import org.apache.calcite.sql.SqlTimestampLiteral;
import org.apache.calcite.sql.SqlUnknownLiteral;
import org.apache.calcite.sql.fun.SqlBetweenOperator;
import org.apache.calcite.sql.fun.SqlCase;
import org.apache.calcite.sql.fun.SqlLikeOperator;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.calcite.sql.validate.SqlValidator;
import org.apache.calcite.sql.validate.SqlValidatorUtil;
import org.apache.calcite.util.TimestampString;

/**
 * A metric's WHERE clause and aggregation arguments: validated by Calcite against the stream's columns (unknown
 * columns, wrong types and unknown functions are errors with their position), then translated into JEXL over the
 * {@code sql:} namespace of {@link io.coilgun.planner.expr.SqlFunctions}, which gives them SQL's NULL semantics.
 * The planner compiles the translation once per task operator.
 */
final class ExpressionCompiler {
    /** The validated types of the arguments, and the translations. */
    record Compiled(List<ColumnType> argumentTypes, List<String> arguments, String filter) {
    }

    private ExpressionCompiler() {
    }

    /**
     * Validates {@code SELECT <arguments> FROM <stream> WHERE <where>} and translates each part.
     *
     * @param arguments expressions (none may be null)
     * @param where the filter, or null
     */
    static Compiled compile(SqlText sql, StreamDef stream, List<SqlNode> arguments, SqlNode where) {
        JavaTypeFactoryImpl types = new JavaTypeFactoryImpl();
        CalciteSchema root = CalciteSchema.createRootSchema(false, false);
        root.add(stream.name(), new AbstractTable() {
            @Override
            public RelDataType getRowType(RelDataTypeFactory f) {
                RelDataTypeFactory.Builder b = f.builder();
                for (StreamColumn c : stream.columns()) {
                    b.add(c.name(), f.createTypeWithNullability(f.createSqlType(SqlTypeNames.of(c.type())), true));
                }
                return b.build();
            }
        });
        Properties props = new Properties();
        props.setProperty(CalciteConnectionProperty.CASE_SENSITIVE.camelName(), "true");
        CalciteCatalogReader reader = new CalciteCatalogReader(root, List.of(), types,
                new CalciteConnectionConfigImpl(props));
        SqlValidator validator = SqlValidatorUtil.newValidator(SqlStdOperatorTable.instance(), reader, types,
                SqlValidator.Config.DEFAULT.withConformance(PostgresConformance.INSTANCE));
        List<SqlNode> items = new ArrayList<>();
        for (int i = 0; i < arguments.size(); i++) {
            SqlNode a = arguments.get(i);
            items.add(SqlStdOperatorTable.AS.createCall(a.getParserPosition(), a,
                    new SqlIdentifier("a" + i, SqlParserPos.ZERO)));
        }
        if (items.isEmpty()) {
            items.add(SqlLiteral.createExactNumeric("1", SqlParserPos.ZERO));
        }
        SqlSelect select = new SqlSelect(SqlParserPos.ZERO, null, new SqlNodeList(items, SqlParserPos.ZERO),
                new SqlIdentifier(stream.name(), SqlParserPos.ZERO), where, null, null, null, null, null, null, null,
                null);
        SqlSelect validated;
        try {
            validated = (SqlSelect) validator.validate(select);
        } catch (CalciteContextException e) {
            throw validationError(sql, e);
        }
        RelDataType row = validator.getValidatedNodeType(validated);
        List<ColumnType> argTypes = new ArrayList<>();
        List<String> translated = new ArrayList<>();
        for (int i = 0; i < arguments.size(); i++) {
            argTypes.add(columnType(sql, row.getFieldList().get(i).getType(), arguments.get(i)));
            SqlNode item = validated.getSelectList().get(i);
            translated.add(translate(sql, item.getKind() == SqlKind.AS ? ((SqlCall) item).operand(0) : item));
        }
        String filter = validated.getWhere() == null ? null : translate(sql, validated.getWhere());
        return new Compiled(argTypes, translated, filter);
    }

    private static ColumnType columnType(SqlText sql, RelDataType t, SqlNode at) {
        return switch (t.getSqlTypeName()) {
            case BOOLEAN -> ColumnType.BOOLEAN;
            case TINYINT, SMALLINT, INTEGER, BIGINT -> ColumnType.BIGINT;
            case DOUBLE, FLOAT, REAL, DECIMAL -> ColumnType.DOUBLE;
            case CHAR, VARCHAR -> ColumnType.VARCHAR;
            case TIMESTAMP -> ColumnType.TIMESTAMP;
            default -> throw sql.error(SqlState.DATATYPE_MISMATCH, "expressions of type " + t.getSqlTypeName()
                    + " are not supported in metrics", at);
        };
    }

    private static CoilgunException validationError(SqlText sql, CalciteContextException e) {
        String message = e.getCause() != null && e.getCause().getMessage() != null ? e.getCause().getMessage()
                : e.getMessage();
        int position = CoilgunParser.offsetOf(sql.query(), new SqlParserPos(e.getPosLine(), e.getPosColumn()));
        SqlState state;
        if (message.contains("not found")) {
            state = SqlState.UNDEFINED_COLUMN;
        } else if (message.contains("No match found for function") || message.contains("Cannot apply")) {
            state = SqlState.UNDEFINED_FUNCTION;
        } else {
            state = SqlState.DATATYPE_MISMATCH;
        }
        return new CoilgunException(state, message, position, e);
    }

    /** The JEXL form of a validated expression. */
    static String translate(SqlText sql, SqlNode n) {
        if (n instanceof SqlIdentifier id) {
            return Variables.of(id.names.get(id.names.size() - 1));
        }
        if (n instanceof SqlLiteral lit) {
            return literal(sql, lit);
        }
        if (n instanceof SqlNodeList list && list.size() == 1) {
            return translate(sql, list.get(0));
        }
        if (n instanceof SqlCase c) {
            String out = c.getElseOperand() == null ? "null" : translate(sql, c.getElseOperand());
            for (int i = c.getWhenOperands().size() - 1; i >= 0; i--) {
                SqlNode when = c.getWhenOperands().get(i);
                if (c.getValueOperand() != null) {
                    when = SqlStdOperatorTable.EQUALS.createCall(when.getParserPosition(), c.getValueOperand(), when);
                }
                out = "sql:when(" + translate(sql, when) + ", " + translate(sql, c.getThenOperands().get(i)) + ", "
                        + out + ")";
            }
            return out;
        }
        if (!(n instanceof SqlCall call)) {
            throw unsupported(sql, n);
        }
        List<SqlNode> ops = call.getOperandList();
        switch (call.getKind()) {
            case AND:
                return fold("sql:all", sql, ops);
            case OR:
                return fold("sql:any", sql, ops);
            case NOT:
                return "sql:negate(" + translate(sql, ops.get(0)) + ")";
            case EQUALS:
                return binary("sql:equal", sql, ops);
            case NOT_EQUALS:
                return binary("sql:notEqual", sql, ops);
            case LESS_THAN:
                return binary("sql:less", sql, ops);
            case LESS_THAN_OR_EQUAL:
                return binary("sql:lessOrEqual", sql, ops);
            case GREATER_THAN:
                return binary("sql:greater", sql, ops);
            case GREATER_THAN_OR_EQUAL:
                return binary("sql:greaterOrEqual", sql, ops);
            case PLUS:
                return binary("sql:add", sql, ops);
            case MINUS:
                return binary("sql:sub", sql, ops);
            case TIMES:
                return binary("sql:mul", sql, ops);
            case DIVIDE:
                return binary("sql:divide", sql, ops);
            case MOD:
                return binary("sql:modulo", sql, ops);
            case MINUS_PREFIX:
                return "sql:neg(" + translate(sql, ops.get(0)) + ")";
            case PLUS_PREFIX:
                return translate(sql, ops.get(0));
            case IS_NULL:
                return "sql:isNull(" + translate(sql, ops.get(0)) + ")";
            case IS_NOT_NULL:
                return "!sql:isNull(" + translate(sql, ops.get(0)) + ")";
            case BETWEEN: {
                String b = "sql:between(" + translate(sql, ops.get(0)) + ", " + translate(sql, ops.get(1)) + ", "
                        + translate(sql, ops.get(2)) + ")";
                return ((SqlBetweenOperator) call.getOperator()).isNegated() ? "sql:negate(" + b + ")" : b;
            }
            case IN:
            case NOT_IN: {
                StringBuilder b = new StringBuilder("sql:oneOf(").append(translate(sql, ops.get(0)));
                for (SqlNode v : (SqlNodeList) ops.get(1)) {
                    b.append(", ").append(translate(sql, v));
                }
                b.append(')');
                return call.getKind() == SqlKind.NOT_IN ? "sql:negate(" + b + ")" : b.toString();
            }
            case LIKE: {
                if (ops.size() > 2 || !(ops.get(1) instanceof SqlCharStringLiteral pattern)) {
                    throw unsupported(sql, n);
                }
                String like = "sql:like(" + translate(sql, ops.get(0)) + ", "
                        + quote(likeToRegex(pattern.getValueAs(String.class))) + ")";
                return ((SqlLikeOperator) call.getOperator()).isNegated() ? "sql:negate(" + like + ")" : like;
            }
            case CAST: {
                SqlDataTypeSpec spec = (SqlDataTypeSpec) ops.get(1);
                String to = String.join(".", spec.getTypeName().names).toUpperCase(Locale.ROOT);
                String inner = translate(sql, ops.get(0));
                return switch (to) {
                    case "DOUBLE", "FLOAT", "REAL", "DECIMAL", "NUMERIC" -> "sql:toDouble(" + inner + ")";
                    case "INTEGER", "INT", "BIGINT", "SMALLINT", "TINYINT" -> "sql:toLong(" + inner + ")";
                    case "TIMESTAMP", "VARCHAR", "CHAR", "BOOLEAN" -> inner;
                    default -> throw unsupported(sql, n);
                };
            }
            case COALESCE:
                if (ops.size() == 2) {
                    return binary("sql:coalesce", sql, ops);
                }
                throw unsupported(sql, n);
            case OTHER_FUNCTION:
            case OTHER:
            default:
                break;
        }
        String fn = call.getOperator().getName().toUpperCase(Locale.ROOT);
        return switch (fn) {
            case "ABS" -> "sql:abs(" + translate(sql, ops.get(0)) + ")";
            case "LOWER" -> "sql:lower(" + translate(sql, ops.get(0)) + ")";
            case "UPPER" -> "sql:upper(" + translate(sql, ops.get(0)) + ")";
            case "CHAR_LENGTH", "CHARACTER_LENGTH", "LENGTH" -> "sql:length(" + translate(sql, ops.get(0)) + ")";
            case "||" -> binary("sql:concat", sql, ops);
            default -> throw unsupported(sql, n);
        };
    }

    private static String fold(String fn, SqlText sql, List<SqlNode> ops) {
        String out = translate(sql, ops.get(0));
        for (int i = 1; i < ops.size(); i++) {
            out = fn + "(" + out + ", " + translate(sql, ops.get(i)) + ")";
        }
        return out;
    }

    private static String binary(String fn, SqlText sql, List<SqlNode> ops) {
        return fn + "(" + translate(sql, ops.get(0)) + ", " + translate(sql, ops.get(1)) + ")";
    }

    private static String literal(SqlText sql, SqlLiteral lit) {
        if (lit.getTypeName() == SqlTypeName.NULL) {
            return "null";
        }
        if (lit instanceof SqlNumericLiteral num) {
            BigDecimal v = num.getValueAs(BigDecimal.class);
            if (num.isExact() && v.scale() <= 0) {
                return v.toBigIntegerExact() + "L";
            }
            double d = v.doubleValue();
            return Double.toString(d) + "d";
        }
        if (lit instanceof SqlCharStringLiteral) {
            return quote(lit.getValueAs(String.class));
        }
        if (lit.getTypeName() == SqlTypeName.BOOLEAN) {
            return String.valueOf(lit.booleanValue());
        }
        if (lit instanceof SqlTimestampLiteral ts) {
            return micros(ts.getValueAs(TimestampString.class).toString()) + "L";
        }
        if (lit instanceof SqlUnknownLiteral u && u.tag.equalsIgnoreCase("TIMESTAMP")) {
            return micros(u.getValue()) + "L";
        }
        throw unsupported(sql, lit);
    }

    private static long micros(String text) {
        LocalDateTime t = LocalDateTime.parse(text.trim().replace(' ', 'T'));
        return ValueConverter.toMicros(t);
    }

    /** A JEXL single-quoted string literal. */
    private static String quote(String s) {
        return "'" + s.replace("\\", "\\\\").replace("'", "\\'") + "'";
    }

    /** SQL LIKE ({@code %} any run, {@code _} one character, backslash escapes) as a Java regex. */
    static String likeToRegex(String pattern) {
        StringBuilder re = new StringBuilder();
        for (int i = 0; i < pattern.length(); i++) {
            char c = pattern.charAt(i);
            if (c == '\\' && i + 1 < pattern.length()) {
                re.append(Pattern.quote(String.valueOf(pattern.charAt(++i))));
            } else if (c == '%') {
                re.append(".*");
            } else if (c == '_') {
                re.append('.');
            } else {
                re.append(Pattern.quote(String.valueOf(c)));
            }
        }
        return re.toString();
    }

    private static CoilgunException unsupported(SqlText sql, SqlNode n) {
        return sql.error(SqlState.FEATURE_NOT_SUPPORTED, "expression " + n + " is not supported in metrics yet", n);
    }
}
