package io.coilgun.sql.query;

import io.coilgun.planner.error.CoilgunException;
import io.coilgun.planner.error.SqlState;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.List;
import java.util.Locale;
import java.util.TreeMap;
import org.apache.calcite.adapter.java.JavaTypeFactory;
import org.apache.calcite.config.CalciteConnectionConfig;
import org.apache.calcite.jdbc.CalcitePrepare;
import org.apache.calcite.prepare.CalciteCatalogReader;
import org.apache.calcite.prepare.CalciteSqlValidator;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlCallBinding;
import org.apache.calcite.sql.fun.SqlCase;
import org.apache.calcite.sql.SqlCharStringLiteral;
import org.apache.calcite.sql.SqlDynamicParam;
import org.apache.calcite.sql.SqlFunction;
import org.apache.calcite.sql.SqlIntervalQualifier;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlLiteral;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlNodeList;
import org.apache.calcite.sql.SqlOperator;
import org.apache.calcite.sql.SqlOperatorTable;
import org.apache.calcite.sql.SqlFunctionCategory;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlSyntax;
import org.apache.calcite.sql.SqlUnresolvedFunction;
import org.apache.calcite.sql.validate.SqlNameMatcher;
import org.apache.calcite.sql.validate.SqlNameMatchers;
import org.apache.calcite.sql.SqlUtil;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.sql.type.SqlOperandTypeInference;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.calcite.sql.util.SqlBasicVisitor;
import org.apache.calcite.sql.util.SqlOperatorTables;
import org.apache.calcite.sql.validate.SqlValidator;
import org.apache.calcite.sql.validate.SqlValidatorScope;

/**
 * Calcite's validator with Postgres' types for untyped parameters (a Parse's parameter of type 0, as psycopg 3,
 * node-postgres and pgjdbc's {@code stringtype=unspecified} send them): where Calcite infers none (it would answer
 * "Illegal use of dynamic parameter"), a parameter passed to a function takes the type of the argument Postgres'
 * function resolution picks ({@link PgSignatures}: {@code has_table_privilege($1, $2, 'SELECT')}, {@code
 * round($1)} a double precision, {@code date_trunc($1, $2)} 42725 as in Postgres); one side of an operator the type
 * of the other ({@code $1 = $2}: text); alone ({@code SELECT $1}, {@code coalesce($1, $2)}), text.
 */
final class PgValidator extends CalciteSqlValidator {
    private static final java.util.Set<String> OBJECT_TYPES = java.util.Set.of("regclass", "regtype", "regnamespace",
            "regrole");
    /** The functions Coilgun registers that take one of those (as an oid) where Postgres' resolution picks it. */
    private static final java.util.Set<String> OBJECT_FUNCTIONS = java.util.Set.of("pg_relation_size",
            "pg_total_relation_size", "pg_table_size", "pg_indexes_size");

    /** The type given to each parameter ($n, by index): a clone of its node (coalesce's CASE) takes the same. */
    private final Map<Integer, RelDataType> parameterTypes = new HashMap<>();

    private PgValidator(SqlOperatorTable opTab, CalciteCatalogReader catalogReader, JavaTypeFactory typeFactory,
            Config config) {
        super(opTab, catalogReader, typeFactory, config);
    }

    /** As Calcite's own (CalcitePrepareImpl's), this class instead of Calcite's. */
    static SqlValidator create(CalcitePrepare.Context context, CalciteCatalogReader catalogReader,
            java.util.function.UnaryOperator<SqlValidator.Config> configTransform) {
        SqlOperatorTable functions = context.config().fun(SqlOperatorTable.class, SqlStdOperatorTable.instance());
        CalciteConnectionConfig connectionConfig = context.config();
        SqlValidator.Config config = configTransform.apply(SqlValidator.Config.DEFAULT
                .withLenientOperatorLookup(connectionConfig.lenientOperatorLookup())
                .withConformance(connectionConfig.conformance())
                .withDefaultNullCollation(connectionConfig.defaultNullCollation())
                .withIdentifierExpansion(true));
        return new PgValidator(SqlOperatorTables.chain(caseInsensitive(functions), catalogReader), catalogReader,
                context.getTypeFactory(), config);
    }

    /**
     * Calcite's functions found whatever the case of their name: a query's unquoted names are folded to lower case
     * (as Postgres folds them), and the library's functions ({@code md5}, {@code length}) are named in upper case.
     */
    private static SqlOperatorTable caseInsensitive(SqlOperatorTable table) {
        return new SqlOperatorTable() {
            @Override
            public void lookupOperatorOverloads(SqlIdentifier name, SqlFunctionCategory category, SqlSyntax syntax,
                    List<SqlOperator> operators, SqlNameMatcher matcher) {
                table.lookupOperatorOverloads(name, category, syntax, operators, SqlNameMatchers.withCaseSensitive(false));
            }

            @Override
            public List<SqlOperator> getOperatorList() {
                return table.getOperatorList();
            }
        };
    }

    /**
     * One field per parameter, by its index ({@code ?0}, {@code ?1}, …), as the executor reads their values: Calcite
     * counts each node, and coalesce's CASE repeats {@code $n} as a clone ({@code CASE WHEN $1 IS NOT NULL THEN $1
     * …}), which would make a slot no value is bound to ("unbound parameter") and shift the later ones' types.
     */
    @Override
    public RelDataType getParameterRowType(SqlNode sqlQuery) {
        TreeMap<Integer, RelDataType> types = new TreeMap<>();
        sqlQuery.accept(new SqlBasicVisitor<Void>() {
            @Override
            public Void visit(SqlDynamicParam param) {
                types.putIfAbsent(param.getIndex(), getValidatedNodeType(param));
                return null;
            }
        });
        List<String> names = new ArrayList<>();
        for (int i = 0; i < types.size(); i++) {
            names.add("?" + i);
        }
        return typeFactory.createStructType(new ArrayList<>(types.values()), names);
    }

    @Override
    protected void inferUnknownTypes(RelDataType inferredType, SqlValidatorScope scope, SqlNode node) {
        if (node instanceof SqlDynamicParam) {
            if (getValidatedNodeTypeIfKnown(node) != null) {
                return; // typed already, as its function's argument
            }
            RelDataType given = parameterTypes.get(((SqlDynamicParam) node).getIndex());
            if (given != null) {
                inferredType = given; // another node of the parameter's has it (coalesce's CASE repeats $n)
            } else if (inferredType.equals(unknownType)) {
                inferredType = text(); // Postgres' unknown, alone: text
            }
        } else if (node instanceof SqlCase c) {
            typeUntypedResults(c, scope);
        } else if (node instanceof SqlCall call && !node.isA(SqlKind.QUERY)
                && node.getKind() != SqlKind.AS && node.getKind() != SqlKind.MEASURE) {
            typeUntypedOperands(call, scope, inferredType);
        }
        super.inferUnknownTypes(inferredType, scope, node);
    }

    /**
     * A CASE's (and so coalesce's, nullif's) untyped results: the type of its other results, text when all are
     * unknown, as Postgres resolves them (Calcite would type {@code coalesce($1, 'a')}'s $1 as the literal's CHAR(1)).
     */
    private void typeUntypedResults(SqlCase c, SqlValidatorScope scope) {
        List<SqlNode> results = new ArrayList<>(c.getThenOperands().getList());
        results.add(c.getElseOperand());
        boolean untyped = false;
        for (int i = 0; i < results.size(); i++) {
            SqlNode r = results.get(i);
            if (r instanceof SqlCall call && call.getKind() == SqlKind.CAST_NOT_NULL) {
                r = call.operand(0); // coalesce's CASE: CAST_NOT_NULL($1)
                results.set(i, r);
            }
            untyped |= r instanceof SqlDynamicParam && getValidatedNodeTypeIfKnown(r) == null;
        }
        if (untyped) {
            // the other results' types only then: deriving a result's type while its own query is being validated
            // (a scalar subquery in psql's \d queries) recursed without end
            List<String> known = new ArrayList<>();
            for (SqlNode r : results) {
                known.add(r == null || r instanceof SqlDynamicParam ? null : pgType(r, scope));
            }
            String other = firstKnown(known);
            for (SqlNode r : results) {
                if (r instanceof SqlDynamicParam && getValidatedNodeTypeIfKnown(r) == null) {
                    type((SqlDynamicParam) r, other == null ? text() : sqlType(other), scope);
                }
            }
        }
    }

    /** Types the untyped parameters among {@code call}'s operands that its operator's own inference leaves unknown. */
    private void typeUntypedOperands(SqlCall call, SqlValidatorScope scope, RelDataType inferredType) {
        List<SqlNode> operands = call.getOperandList();
        boolean untyped = false;
        for (SqlNode o : operands) {
            untyped |= o instanceof SqlDynamicParam && getValidatedNodeTypeIfKnown(o) == null;
        }
        if (!untyped) {
            return;
        }
        RelDataType[] inferred = new RelDataType[operands.size()];
        Arrays.fill(inferred, unknownType);
        SqlOperandTypeInference inference = call.getOperator().getOperandTypeInference();
        if (inference != null) {
            try {
                inference.inferOperandTypes(new SqlCallBinding(this, scope, call), inferredType, inferred);
            } catch (RuntimeException e) {
                Arrays.fill(inferred, unknownType); // it could not say: Postgres' rules below
            }
        }
        boolean left = false;
        for (int i = 0; i < operands.size(); i++) {
            left |= operands.get(i) instanceof SqlDynamicParam && getValidatedNodeTypeIfKnown(operands.get(i)) == null
                    && inferred[i].equals(unknownType);
        }
        // a function of an object identifier: its own inference says integer (an oid), Postgres reads a name
        boolean objects = call.getOperator() instanceof SqlFunction
                && OBJECT_FUNCTIONS.contains(call.getOperator().getName().toLowerCase(Locale.ROOT));
        if (!left && !objects) {
            return;
        }
        List<String> known = new ArrayList<>();
        for (SqlNode o : operands) {
            known.add(pgType(o, scope));
        }
        RelDataType[] types = postgresTypes(call, known);
        for (int i = 0; i < operands.size(); i++) {
            SqlNode o = operands.get(i);
            String object = objects && o instanceof SqlDynamicParam && getValidatedNodeTypeIfKnown(o) == null
                    ? objectType(call, known, i) : null;
            if (object != null || o instanceof SqlDynamicParam && getValidatedNodeTypeIfKnown(o) == null
                    && inferred[i].equals(unknownType) && types[i] != null) {
                if (object != null) {
                    // Postgres reads the text as the object's name (regclassin): the name function over the text
                    call.setOperand(i, new SqlUnresolvedFunction(new SqlIdentifier("pg_" + object + "_oid",
                            o.getParserPosition()), null, null, null, null, SqlFunctionCategory.USER_DEFINED_FUNCTION)
                            .createCall(o.getParserPosition(), o));
                    type((SqlDynamicParam) o, text(), scope);
                } else {
                    type((SqlDynamicParam) o, types[i], scope);
                }
            }
        }
    }

    /**
     * The object-identifier type ({@code regclass}, {@code regtype}, {@code regnamespace}, {@code regrole}) Postgres'
     * resolution gives argument {@code i} of a function call, else null: an untyped parameter there is an object's
     * name ({@code pg_relation_size($1)} with {@code 'pg_class'}), which Coilgun's oid (an integer) would refuse.
     */
    private static String objectType(SqlCall call, List<String> known, int i) {
        String name = call.getOperator().getName().toLowerCase(Locale.ROOT);
        if (!(call.getOperator() instanceof SqlFunction) || !PgSignatures.has(name)) {
            return null;
        }
        String type = PgSignatures.resolve(name, known).get(i);
        return OBJECT_TYPES.contains(type) ? type : null;
    }

    /** Gives {@code param} {@code type}, or the type another node of the same parameter has already. */
    private void type(SqlDynamicParam param, RelDataType type, SqlValidatorScope scope) {
        RelDataType given = parameterTypes.computeIfAbsent(param.getIndex(), i -> type);
        super.inferUnknownTypes(given, scope, param);
    }

    /** The types Postgres gives the unknown operands of {@code call} (null where it says nothing). */
    private RelDataType[] postgresTypes(SqlCall call, List<String> known) {
        SqlOperator op = call.getOperator();
        RelDataType[] types = new RelDataType[known.size()];
        SqlKind kind = call.getKind();
        String name = op.getName().toLowerCase(Locale.ROOT);
        if (op instanceof SqlFunction && kind != SqlKind.TRIM && kind != SqlKind.COALESCE && kind != SqlKind.NULLIF
                && kind != SqlKind.GREATEST && kind != SqlKind.LEAST && PgSignatures.has(name)) {
            List<String> chosen = PgSignatures.resolve(name, known);
            for (int i = 0; i < types.length; i++) {
                if (known.get(i) == null) {
                    types[i] = sqlType(chosen.get(i), known, chosen, call, i);
                }
            }
            return types;
        }
        switch (kind) {
            case PLUS, MINUS, TIMES, DIVIDE, MOD, PLUS_PREFIX, MINUS_PREFIX -> {
                String other = firstKnown(known);
                if (other == null) {
                    throw new CoilgunException(SqlState.AMBIGUOUS_FUNCTION, "operator is not unique: "
                            + (known.size() == 1 ? op.getName() + " unknown" : "unknown " + op.getName()
                            + " unknown"), 0);
                }
                Arrays.fill(types, sqlType(other));
            }
            case AND, OR, NOT, IS_TRUE, IS_FALSE, IS_NOT_TRUE, IS_NOT_FALSE -> Arrays.fill(types, boolean_());
            default -> {
                // a comparison, LIKE, ||, coalesce, IN, …: the other side's type; all unknown: text
                String other = firstKnown(known);
                Arrays.fill(types, other == null ? text() : sqlType(other));
            }
        }
        return types;
    }

    /**
     * The SQL type of argument type {@code pgType}; a polymorphic one takes its known arguments' type, or text. (Postgres
     * leaves an untyped parameter passed as {@code "any"} undetermined, 42P18; Coilgun does not know whether the client
     * typed it, as with {@code json_build_object($1, …)} of a text, so it is text.)
     */
    private RelDataType sqlType(String pgType, List<String> known, List<String> chosen, SqlCall call, int at) {
        if (pgType.equals("\"any\"")) {
            return text(); // each "any" its own type
        }
        if (PgSignatures.polymorphic(pgType)) {
            for (int i = 0; i < known.size(); i++) {
                if (known.get(i) != null && chosen.get(i).equals(pgType)) {
                    return sqlType(known.get(i));
                }
            }
            return text();
        }
        return sqlType(pgType);
    }

    private static String firstKnown(List<String> known) {
        for (String k : known) {
            if (k != null) {
                return k;
            }
        }
        return null;
    }

    /** The Postgres type of an operand whose type is known ({@code null}: a parameter, a string literal, NULL). */
    private String pgType(SqlNode operand, SqlValidatorScope scope) {
        if (operand instanceof SqlDynamicParam) {
            RelDataType t = getValidatedNodeTypeIfKnown(operand);
            t = t != null ? t : parameterTypes.get(((SqlDynamicParam) operand).getIndex());
            return t == null ? null : pgType(t);
        }
        if (operand instanceof SqlCharStringLiteral || SqlUtil.isNullLiteral(operand, false)) {
            return null; // Postgres' unknown-type literal
        }
        if (operand instanceof SqlIntervalQualifier || operand instanceof SqlLiteral l && l.getTypeName()
                == SqlTypeName.SYMBOL) {
            return "text"; // a field name (EXTRACT's): Postgres passes it as text
        }
        if (operand instanceof SqlNodeList || operand.isA(SqlKind.QUERY)) {
            return null; // a subquery's type is not derived here: it may be the query being validated
        }
        try {
            if (hasParameter(operand)) {
                inferUnknownTypes(unknownType, scope, operand); // its own parameters first, as Postgres types inside out
            }
            return pgType(deriveType(scope, operand));
        } catch (CoilgunException e) {
            throw e;
        } catch (RuntimeException e) {
            return null;
        }
    }

    private static boolean hasParameter(SqlNode node) {
        boolean[] found = {false};
        node.accept(new SqlBasicVisitor<Void>() {
            @Override
            public Void visit(SqlDynamicParam param) {
                found[0] = true;
                return null;
            }
        });
        return found[0];
    }

    /** Postgres' name of a SQL type (what {@code format_type} prints), null for one it would not know. */
    static String pgType(RelDataType type) {
        return switch (type.getSqlTypeName()) {
            case CHAR, VARCHAR -> "text";
            case BOOLEAN -> "boolean";
            case TINYINT, SMALLINT -> "smallint";
            case INTEGER -> "integer";
            case BIGINT -> "bigint";
            case DECIMAL -> "numeric";
            case REAL -> "real";
            case FLOAT, DOUBLE -> "double precision";
            case DATE -> "date";
            case TIME -> "time without time zone";
            case TIMESTAMP -> "timestamp without time zone";
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE -> "timestamp with time zone";
            case BINARY, VARBINARY -> "bytea";
            case ARRAY -> {
                RelDataType element = type.getComponentType();
                String e = element == null ? null : pgType(element);
                yield e == null ? null : e + "[]";
            }
            default -> SqlTypeName.INTERVAL_TYPES.contains(type.getSqlTypeName()) ? "interval" : null;
        };
    }

    /** The SQL type Coilgun gives a Postgres type (an oid or reg* is an integer; types it has no own for: text). */
    private RelDataType sqlType(String pgType) {
        RelDataTypeFactory f = typeFactory;
        if (pgType.endsWith("[]")) {
            return f.createTypeWithNullability(f.createArrayType(sqlType(pgType.substring(0, pgType.length() - 2)),
                    -1), true);
        }
        SqlTypeName name = switch (pgType) {
            case "boolean" -> SqlTypeName.BOOLEAN;
            case "smallint" -> SqlTypeName.SMALLINT;
            case "integer", "oid", "regclass", "regtype", "regproc", "regprocedure", "regnamespace", "regrole",
                    "regoper", "regoperator", "regconfig", "regcollation", "xid" -> SqlTypeName.INTEGER;
            case "bigint" -> SqlTypeName.BIGINT;
            case "numeric" -> SqlTypeName.DECIMAL;
            case "real" -> SqlTypeName.REAL;
            case "double precision" -> SqlTypeName.DOUBLE;
            case "date" -> SqlTypeName.DATE;
            case "time without time zone", "time with time zone" -> SqlTypeName.TIME;
            case "timestamp without time zone", "timestamp with time zone" -> SqlTypeName.TIMESTAMP;
            case "bytea" -> SqlTypeName.VARBINARY;
            default -> null;
        };
        if (pgType.equals("interval")) {
            return f.createTypeWithNullability(f.createSqlIntervalType(new SqlIntervalQualifier(
                    org.apache.calcite.avatica.util.TimeUnit.DAY, org.apache.calcite.avatica.util.TimeUnit.SECOND,
                    org.apache.calcite.sql.parser.SqlParserPos.ZERO)), true);
        }
        return name == null ? text() : f.createTypeWithNullability(f.createSqlType(name), true);
    }

    private RelDataType text() {
        return typeFactory.createTypeWithNullability(typeFactory.createSqlType(SqlTypeName.VARCHAR), true);
    }

    private RelDataType boolean_() {
        return typeFactory.createTypeWithNullability(typeFactory.createSqlType(SqlTypeName.BOOLEAN), true);
    }
}
