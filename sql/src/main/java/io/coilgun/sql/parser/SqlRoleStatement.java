package io.coilgun.sql.parser;

import java.util.ArrayList;
import java.util.List;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlNodeList;
import org.apache.calcite.sql.SqlOperator;
import org.apache.calcite.sql.SqlSpecialOperator;
import org.apache.calcite.sql.SqlWriter;
import org.apache.calcite.sql.parser.SqlParserPos;

/**
 * {@code CREATE ROLE|USER name [WITH] option ...}, {@code ALTER ROLE|USER name [WITH] option ...} or
 * {@code DROP ROLE|USER [IF EXISTS] name [, ...]}. An option is a word ({@code LOGIN}, {@code SUPERUSER}, ...) or
 * {@code PASSWORD 'secret'} / {@code PASSWORD NULL} ({@link SqlOption}s); the compiler says which it takes.
 */
public final class SqlRoleStatement extends SqlCall {
    /** What the statement does to its roles. */
    public enum Verb { CREATE, ALTER, DROP }

    public static final SqlOperator OPERATOR = new SqlSpecialOperator("ROLE", SqlKind.OTHER_DDL);

    private final Verb verb;
    /** Whether it was written USER (CREATE USER logs in unless told NOLOGIN, as in Postgres). */
    private final boolean user;
    private final boolean ifExists;
    private final SqlNodeList names;
    private final SqlNodeList options;

    public SqlRoleStatement(SqlParserPos pos, Verb verb, boolean user, boolean ifExists, SqlNodeList names,
            SqlNodeList options) {
        super(pos);
        this.verb = verb;
        this.user = user;
        this.ifExists = ifExists;
        this.names = names;
        this.options = options;
    }

    public Verb verb() {
        return verb;
    }

    public boolean user() {
        return user;
    }

    public boolean ifExists() {
        return ifExists;
    }

    /** The role names (one for CREATE and ALTER). */
    public List<SqlIdentifier> names() {
        List<SqlIdentifier> list = new ArrayList<>();
        for (SqlNode n : names) {
            list.add((SqlIdentifier) n);
        }
        return list;
    }

    /** Each option: an identifier (a word) or a {@link SqlOption} (PASSWORD and its value). */
    public SqlNodeList options() {
        return options;
    }

    @Override
    public SqlOperator getOperator() {
        return OPERATOR;
    }

    @Override
    public List<SqlNode> getOperandList() {
        return List.of(names, options);
    }

    @Override
    public void unparse(SqlWriter writer, int leftPrec, int rightPrec) {
        writer.keyword(verb.name());
        writer.keyword(user ? "USER" : "ROLE");
        if (ifExists) {
            writer.keyword("IF EXISTS");
        }
        names.unparse(writer, leftPrec, rightPrec);
        for (SqlNode o : options) {
            o.unparse(writer, leftPrec, rightPrec);
        }
    }
}
