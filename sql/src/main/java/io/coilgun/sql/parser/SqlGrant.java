package io.coilgun.sql.parser;

import java.util.List;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlNodeList;
import org.apache.calcite.sql.SqlOperator;
import org.apache.calcite.sql.SqlSpecialOperator;
import org.apache.calcite.sql.SqlWriter;
import org.apache.calcite.sql.parser.SqlParserPos;

/**
 * {@code GRANT privileges ON [TABLE] name [, ...] TO role [, ...]}, {@code GRANT CREATE ON SCHEMA name TO ...} and
 * the same with REVOKE … FROM. Privileges are words ({@code SELECT}, {@code INSERT}, {@code CREATE}, {@code ALL}); the
 * compiler says which it takes on what.
 */
public final class SqlGrant extends SqlCall {
    public static final SqlOperator OPERATOR = new SqlSpecialOperator("GRANT", SqlKind.OTHER_DDL);

    private final boolean grant;
    private final List<String> privileges;
    private final boolean onSchema;
    private final SqlNodeList objects;
    private final SqlNodeList roles;

    public SqlGrant(SqlParserPos pos, boolean grant, List<String> privileges, boolean onSchema, SqlNodeList objects,
            SqlNodeList roles) {
        super(pos);
        this.grant = grant;
        this.privileges = List.copyOf(privileges);
        this.onSchema = onSchema;
        this.objects = objects;
        this.roles = roles;
    }

    /** GRANT, or REVOKE. */
    public boolean grant() {
        return grant;
    }

    /** The privileges named, upper case ({@code ALL} for ALL [PRIVILEGES]). */
    public List<String> privileges() {
        return privileges;
    }

    public boolean onSchema() {
        return onSchema;
    }

    /** The tables (or schemas), each an identifier, maybe qualified ({@code coilgun.tasks}). */
    public SqlNodeList objects() {
        return objects;
    }

    public SqlNodeList roles() {
        return roles;
    }

    @Override
    public SqlOperator getOperator() {
        return OPERATOR;
    }

    @Override
    public List<SqlNode> getOperandList() {
        return List.of(objects, roles);
    }

    @Override
    public void unparse(SqlWriter writer, int leftPrec, int rightPrec) {
        writer.keyword(grant ? "GRANT" : "REVOKE");
        writer.keyword(String.join(", ", privileges));
        writer.keyword(onSchema ? "ON SCHEMA" : "ON");
        objects.unparse(writer, leftPrec, rightPrec);
        writer.keyword(grant ? "TO" : "FROM");
        roles.unparse(writer, leftPrec, rightPrec);
    }
}
