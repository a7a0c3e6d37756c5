package io.coilgun.sql.parser;

import io.coilgun.planner.error.SqlState;
import java.time.DateTimeException;
import java.time.LocalDateTime;
import java.util.List;
import java.util.Locale;
import org.apache.calcite.sql.SqlBasicTypeNameSpec;
import org.apache.calcite.sql.SqlBinaryOperator;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlCharStringLiteral;
import org.apache.calcite.sql.SqlDataTypeSpec;
import org.apache.calcite.sql.SqlDynamicParam;
import org.apache.calcite.sql.SqlFunctionCategory;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlLiteral;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlUnresolvedFunction;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.apache.calcite.sql.type.SqlTypeName;

/**
 * Postgres' {@code expr::type}, resolved while parsing. Types Calcite knows become a CAST; Postgres' names for them
 * ({@code int8}, {@code text}, {@code name}, {@code float8}, …) are mapped first. The object-identifier types
 * become catalog functions, since a {@code regclass} is an oid that prints as a name: a string literal or a parameter
 * cast to one ({@code 'pg_class'::regclass}) is the object's oid, any other value cast to one ({@code c.oid::regclass}) is its
 * name. A cast to an array type ({@code ::int2[]}) gives text: the catalog shows arrays as text.
 */
public final class PgCast extends SqlBinaryOperator {
    private static final PgCast SCALAR = new PgCast(false);
    private static final PgCast ARRAY = new PgCast(true);

    private final boolean array;

    private PgCast(boolean array) {
        // Binds tighter than any other binary operator, as in Postgres (and Calcite's Babel parser).
        super("::", SqlKind.OTHER, 94, true, null, null, null);
        this.array = array;
    }

    public static PgCast operator(boolean array) {
        return array ? ARRAY : SCALAR;
    }

    @Override
    public SqlCall createCall(SqlLiteral functionQualifier, SqlParserPos pos, SqlNode... operands) {
        SqlNode value = operands[0];
        SqlDataTypeSpec type = (SqlDataTypeSpec) operands[1];
        if (array) {
            return cast(value, SqlTypeName.VARCHAR, pos); // Coilgun's catalog shows arrays as text
        }
        if (type.getTypeNameSpec() instanceof SqlBasicTypeNameSpec basic) {
            SqlTypeName target = SqlTypeName.get(basic.getTypeName().getSimple());
            SqlCall name = objectName(value, target, pos);
            if (name != null) {
                return name;
            }
            return SqlStdOperatorTable.CAST.createCall(pos, dateTimeText(value, target), type);
        }
        List<String> names = type.getTypeName().names;
        String name = names.get(names.size() - 1).toLowerCase(Locale.ROOT);
        if (names.size() > 1 && !names.get(0).equalsIgnoreCase("pg_catalog")) {
            throw new CoilgunParseError(SqlState.UNDEFINED_OBJECT,
                    "type \"" + String.join(".", names) + "\" does not exist", type.getParserPosition());
        }
        boolean literal = value instanceof SqlCharStringLiteral;
        switch (name) {
            case "regclass", "regtype", "regnamespace", "regrole" -> {
                // a parameter is a name too: SQLAlchemy binds CAST(%(p)s AS REGCLASS) with 'pg_catalog.pg_class'
                if (value instanceof SqlDynamicParam) {
                    return function("pg_" + name + "_oid", pos, cast(value, SqlTypeName.VARCHAR, pos));
                }
                return function("pg_" + name + (literal ? "_oid" : "_name"), pos, value);
            }
            case "regproc", "regprocedure" -> {
                if (literal) {
                    String proc = ((SqlCharStringLiteral) value).getValueAs(String.class);
                    proc = proc.startsWith("pg_catalog.") ? proc.substring("pg_catalog.".length()) : proc;
                    return cast(SqlLiteral.createCharString(proc, pos), SqlTypeName.VARCHAR, pos);
                }
                return cast(value, SqlTypeName.VARCHAR, pos);
            }
            default -> {
                SqlTypeName standard = standardType(name);
                if (standard == null) {
                    throw new CoilgunParseError(SqlState.UNDEFINED_OBJECT, "type \"" + name + "\" does not exist",
                            type.getParserPosition());
                }
                SqlCall objectName = objectName(value, standard, pos);
                if (objectName != null) {
                    return objectName;
                }
                SqlCall oid = objectOid(value, standard, pos);
                if (oid != null) {
                    return oid;
                }
                return cast(dateTimeText(value, standard), standard, pos);
            }
        }
    }

    /**
     * A {@code regclass} (or other object-identifier value) cast to text is the object's name, as Postgres prints it
     * ({@code 'payments'::regclass::text} is {@code payments}): the name function over the oid; null for any other
     * cast.
     */
    private static SqlCall objectName(SqlNode value, SqlTypeName target, SqlParserPos pos) {
        if (target != SqlTypeName.VARCHAR && target != SqlTypeName.CHAR) {
            return null;
        }
        if (value instanceof SqlCall call && call.getOperator() instanceof SqlUnresolvedFunction f) {
            String fn = f.getName().toLowerCase(Locale.ROOT);
            if (fn.startsWith("pg_reg") && fn.endsWith("_oid")) {
                return function(fn.substring(0, fn.length() - "_oid".length()) + "_name", pos, value);
            }
        }
        return null;
    }

    /**
     * A non-literal cast to {@code regclass} and then to {@code oid} (or another integer type) is the object's oid,
     * whether the value was a name or an oid: {@code pg_regclass_to_oid}; null for any other cast.
     */
    private static SqlCall objectOid(SqlNode value, SqlTypeName target, SqlParserPos pos) {
        if (target != SqlTypeName.INTEGER && target != SqlTypeName.BIGINT) {
            return null;
        }
        if (value instanceof SqlCall call && call.getOperator() instanceof SqlUnresolvedFunction f
                && f.getName().equalsIgnoreCase("pg_regclass_name")) {
            return function("pg_regclass_to_oid", pos, call.operand(0));
        }
        return null;
    }

    /** Postgres' name of a type Calcite knows (and the names of the types Coilgun maps onto those). */
    static SqlTypeName standardType(String pgName) {
        return switch (pgName) {
            case "text", "name", "varchar", "bpchar", "char", "character", "citext" -> SqlTypeName.VARCHAR;
            case "oid", "int4", "int", "integer", "xid", "cid", "regoper", "regconfig" -> SqlTypeName.INTEGER;
            case "int2", "smallint" -> SqlTypeName.SMALLINT;
            case "int8", "bigint" -> SqlTypeName.BIGINT;
            case "float4", "real" -> SqlTypeName.REAL;
            case "float8", "float" -> SqlTypeName.DOUBLE;
            case "bool", "boolean" -> SqlTypeName.BOOLEAN;
            case "numeric", "decimal" -> SqlTypeName.DECIMAL;
            case "date" -> SqlTypeName.DATE;
            case "timestamp" -> SqlTypeName.TIMESTAMP;
            case "timestamptz" -> SqlTypeName.TIMESTAMP_WITH_LOCAL_TIME_ZONE;
            case "bytea" -> SqlTypeName.VARBINARY;
            default -> null;
        };
    }

    /**
     * A string literal cast to a timestamp or a date, read with Postgres' rules ({@link TimestampText}: a {@code T}
     * or a zone, as drivers write them) and rewritten in the form Calcite's cast reads; anything else unchanged.
     */
    private static SqlNode dateTimeText(SqlNode value, SqlTypeName type) {
        if (!(value instanceof SqlCharStringLiteral literal)
                || (type != SqlTypeName.TIMESTAMP && type != SqlTypeName.DATE)) {
            return value;
        }
        try {
            LocalDateTime t = TimestampText.parse(literal.getValueAs(String.class));
            String text = type == SqlTypeName.DATE ? t.toLocalDate().toString() : TimestampText.canonical(t);
            return SqlLiteral.createCharString(text, literal.getParserPosition());
        } catch (DateTimeException e) {
            return value; // not one: the cast says so
        }
    }

    private static SqlCall cast(SqlNode value, SqlTypeName type, SqlParserPos pos) {
        return SqlStdOperatorTable.CAST.createCall(pos, value,
                new SqlDataTypeSpec(new SqlBasicTypeNameSpec(type, pos), pos));
    }

    private static SqlCall function(String name, SqlParserPos pos, SqlNode argument) {
        SqlUnresolvedFunction f = new SqlUnresolvedFunction(new SqlIdentifier(name, pos), null, null, null, null,
                SqlFunctionCategory.USER_DEFINED_FUNCTION);
        return f.createCall(pos, argument);
    }
}
