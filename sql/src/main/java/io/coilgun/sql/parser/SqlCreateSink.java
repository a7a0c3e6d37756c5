package io.coilgun.sql.parser;

import java.util.Arrays;
import java.util.List;
import org.apache.calcite.sql.SqlCreate;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlNodeList;
import org.apache.calcite.sql.SqlOperator;
import org.apache.calcite.sql.SqlSpecialOperator;
import org.apache.calcite.sql.SqlWriter;
import org.apache.calcite.sql.parser.SqlParserPos;

/**
 * {@code CREATE SINK [IF NOT EXISTS] name FROM metric_or_stream INTO KAFKA TOPIC 'topic' [WITH (key = literal, ...)]}.
 */
public final class SqlCreateSink extends SqlCreate {
    public static final SqlOperator OPERATOR = new SqlSpecialOperator("CREATE SINK", SqlKind.OTHER_DDL);

    private final SqlIdentifier name;
    private final SqlIdentifier from;
    private final SqlNode topic;
    private final SqlNodeList options;

    public SqlCreateSink(SqlParserPos pos, boolean ifNotExists, SqlIdentifier name, SqlIdentifier from,
            SqlNode topic, SqlNodeList options) {
        super(OPERATOR, pos, false, ifNotExists);
        this.name = name;
        this.from = from;
        this.topic = topic;
        this.options = options;
    }

    public SqlIdentifier name() {
        return name;
    }

    /** The metric or stream whose values the sink writes. */
    public SqlIdentifier from() {
        return from;
    }

    /** The topic, a string literal. */
    public SqlNode topic() {
        return topic;
    }

    public List<SqlOption> options() {
        return Nodes.typed(options, SqlOption.class);
    }

    public boolean ifNotExists() {
        return ifNotExists;
    }

    @Override
    public List<SqlNode> getOperandList() {
        return Arrays.asList(name, from, topic, options);
    }

    @Override
    public void unparse(SqlWriter writer, int leftPrec, int rightPrec) {
        writer.keyword("CREATE SINK");
        if (ifNotExists) {
            writer.keyword("IF NOT EXISTS");
        }
        name.unparse(writer, leftPrec, rightPrec);
        writer.keyword("FROM");
        from.unparse(writer, leftPrec, rightPrec);
        writer.keyword("INTO KAFKA TOPIC");
        topic.unparse(writer, leftPrec, rightPrec);
        if (options.size() > 0) {
            writer.keyword("WITH");
            SqlWriter.Frame frame = writer.startList("(", ")");
            for (SqlNode option : options) {
                writer.sep(",");
                option.unparse(writer, 0, 0);
            }
            writer.endList(frame);
        }
    }
}
