<#--
  Coilgun's productions, included into Calcite's Parser.jj by FMPP (see ../config.fmpp).
  Java logic lives in io.coilgun.sql.parser.ParserSupport so that this stays grammar.

  JavaCC prints five choice-conflict warnings. Two are Calcite's own. The other three
  ("OVER", "WITH", "DELAYED") come from CREATE METRIC, where Calcite's SELECT is followed
  by OVER <window> [WITH (...)]: a function call may take OVER as its window (handled in
  SqlCreateMetric below), UNNEST may take WITH as WITH ORDINALITY, and a table may take
  DELAYED as its alias. JavaCC resolves each greedily; the last two only affect
  statements that are invalid anyway (no OVER before the window).
-->

/**
 * Parses a query string: statements separated by semicolons, with empty
 * statements allowed. For each statement, adds the node to {@code statements}
 * and the extent from its first token to its last token to {@code extents}
 * (so the caller can slice out the statement's text).
 */
void CoilgunStmtList(List<SqlNode> statements, List<SqlParserPos> extents) :
{
    SqlNode stmt;
    Token first;
}
{
    [
        { first = getToken(1); }
        stmt = SqlStmt() {
            statements.add(stmt);
            extents.add(new SqlParserPos(first.beginLine, first.beginColumn,
                token.endLine, token.endColumn));
        }
    ]
    (
        <SEMICOLON>
        [
            { first = getToken(1); }
            stmt = SqlStmt() {
                statements.add(stmt);
                extents.add(new SqlParserPos(first.beginLine, first.beginColumn,
                    token.endLine, token.endColumn));
            }
        ]
    )*
    <EOF>
}

/** Parses {@code IF NOT EXISTS}, returning whether it was there. */
boolean IfNotExistsOpt() :
{
}
{
    LOOKAHEAD(3) <IF> <NOT> <EXISTS> { return true; }
|
    { return false; }
}

/**
 * Parses the rest of
 * {@code CREATE STREAM [IF NOT EXISTS] name (column type [NOT NULL], ...) [WITH (key = literal, ...)]}.
 */
SqlCreate SqlCreateStream(Span s, boolean replace) :
{
    final boolean ifNotExists;
    final SqlIdentifier name;
    final Span columnSpan;
    final List<SqlNode> columns = new ArrayList<SqlNode>();
    SqlNodeList optionList = SqlNodeList.EMPTY;
}
{
    <STREAM> ifNotExists = IfNotExistsOpt() name = SimpleIdentifier()
    <LPAREN> { columnSpan = span(); }
    AddStreamColumn(columns) ( <COMMA> AddStreamColumn(columns) )*
    <RPAREN>
    [ optionList = OptionList() ]
    {
        return new SqlCreateStream(s.end(this), replace, ifNotExists, name,
            new SqlNodeList(columns, columnSpan.end(this)), optionList);
    }
}

/** Parses a stream column, {@code name type [NULL | NOT NULL]}. */
void AddStreamColumn(List<SqlNode> list) :
{
    final SqlIdentifier name;
    final SqlDataTypeSpec type;
    final boolean nullable;
}
{
    name = SimpleIdentifier()
    type = DataType()
    nullable = NullableOptDefaultTrue()
    {
        list.add(new SqlStreamColumn(Span.of(name).end(this), name, type, !nullable));
    }
}

/**
 * Parses {@code ALTER STREAM name ADD [COLUMN] column type [NULL]} (a new schema version of the stream),
 * {@code ALTER STREAM name ADD PARTITION BY field [WITH (partitions = n)]}, {@code ALTER STREAM name DROP PARTITION BY
 * field} and {@code ALTER STREAM name SET (key = value, ...)} (options that may change: replicas).
 */
SqlNode SqlAlterStream() :
{
    final Span s;
    final SqlIdentifier name;
    final SqlIdentifier field;
    final List<SqlNode> columns = new ArrayList<SqlNode>();
    final List<SqlNode> settings = new ArrayList<SqlNode>();
}
{
    <ALTER> { s = span(); } <STREAM> name = SimpleIdentifier()
    (
        <ADD>
        (
            <PARTITION> <BY> field = SimpleIdentifier()
            [ <WITH> <LPAREN> AddOption(settings) ( <COMMA> AddOption(settings) )* <RPAREN> ]
            {
                return SqlAlterStream.addPartitioner(s.end(this), name, field,
                        new SqlNodeList(settings, s.end(this)));
            }
        |
            [ <COLUMN> ] AddStreamColumn(columns)
            {
                return new SqlAlterStream(s.end(this), name, (SqlStreamColumn) columns.get(0));
            }
        )
    |
        <DROP> <PARTITION> <BY> field = SimpleIdentifier()
        {
            return SqlAlterStream.dropPartitioner(s.end(this), name, field);
        }
    |
        <SET> <LPAREN> AddOption(settings) ( <COMMA> AddOption(settings) )* <RPAREN>
        {
            return new SqlAlterStream(s.end(this), name, new SqlNodeList(settings, s.end(this)));
        }
    )
}

/** Parses the rest of {@code DROP METRIC [IF EXISTS] name}. */
SqlDrop SqlDropMetric(Span s, boolean replace) :
{
    final boolean ifExists;
    final SqlIdentifier name;
}
{
    <METRIC> ifExists = IfExistsOpt() name = SimpleIdentifier()
    {
        return new SqlDropMetric(s.end(this), ifExists, name);
    }
}

/** Parses the rest of {@code DROP SINK [IF EXISTS] name}. */
SqlDrop SqlDropSink(Span s, boolean replace) :
{
    final boolean ifExists;
    final SqlIdentifier name;
}
{
    <SINK> ifExists = IfExistsOpt() name = SimpleIdentifier()
    {
        return new SqlDropSink(s.end(this), ifExists, name);
    }
}

/**
 * Parses the rest of
 * {@code CREATE SINK [IF NOT EXISTS] name FROM metric_or_stream INTO KAFKA TOPIC 'topic' [WITH (key = literal, ...)]}.
 */
SqlCreate SqlCreateSink(Span s, boolean replace) :
{
    final boolean ifNotExists;
    final SqlIdentifier name;
    final SqlIdentifier from;
    final String topic;
    final SqlParserPos topicPos;
    SqlNodeList optionList = SqlNodeList.EMPTY;
}
{
    <SINK> ifNotExists = IfNotExistsOpt() name = SimpleIdentifier()
    <FROM> from = SimpleIdentifier()
    <INTO> <KAFKA> <TOPIC> { topicPos = getPos(); } topic = SimpleStringLiteral()
    [ optionList = OptionList() ]
    {
        return new SqlCreateSink(s.end(this), ifNotExists, name, from,
            SqlLiteral.createCharString(topic, topicPos), optionList);
    }
}

/** Parses {@code DROP STREAM [IF EXISTS] name [CASCADE | RESTRICT]} (after DROP). */
SqlDrop SqlDropStream(Span s, boolean replace) :
{
    final boolean ifExists;
    final SqlIdentifier name;
    boolean cascade = false;
}
{
    <STREAM> ifExists = IfExistsOpt() name = SimpleIdentifier()
    [
        <CASCADE> { cascade = true; }
    |
        <RESTRICT> { cascade = false; }
    ]
    {
        return new SqlDropStream(s.end(this), ifExists, name, cascade);
    }
}

/** Parses {@code EXPLAIN STREAM name} or {@code EXPLAIN METRIC name}: the task plan. */
SqlNode SqlExplainPlan() :
{
    final Span s;
    final boolean metric;
    final SqlIdentifier name;
}
{
    <EXPLAIN> { s = span(); }
    (
        <STREAM> { metric = false; }
    |
        <METRIC> { metric = true; }
    )
    name = SimpleIdentifier()
    {
        return new SqlExplainPlan(s.end(this), metric, name);
    }
}

/**
 * Parses {@code SHOW STREAMS}, {@code SHOW METRICS}, {@code SHOW ALL} or {@code SHOW name} (a run-time parameter;
 * several words as in {@code SHOW TRANSACTION ISOLATION LEVEL}).
 */
SqlNode SqlShowObjects() :
{
    final Span s;
    final List<SqlIdentifier> words = new ArrayList<SqlIdentifier>();
    SqlIdentifier word;
}
{
    <SHOW> { s = span(); }
    (
        <ALL> { words.add(new SqlIdentifier("all", getPos())); }
    |
        word = SimpleIdentifier() { words.add(word); }
        ( word = SimpleIdentifier() { words.add(word); } )*
    )
    {
        return ParserSupport.show(s.end(this), words);
    }
}

/**
 * Parses {@code BEGIN}, {@code START TRANSACTION}, {@code COMMIT}, {@code END} or {@code ROLLBACK}, each with an
 * optional {@code WORK} or {@code TRANSACTION} and any transaction modes, which are read and ignored: Coilgun
 * applies every statement at once, so the transaction statements only keep drivers happy. Also the savepoint
 * statements drivers send: {@code SAVEPOINT name}, {@code RELEASE [SAVEPOINT] name} and
 * {@code ROLLBACK [WORK | TRANSACTION] TO [SAVEPOINT] name}.
 */
SqlNode SqlTransaction() :
{
    final Span s;
    SqlTransaction.Kind kind;
    SqlIdentifier savepoint = null;
}
{
    (
        <BEGIN> { s = span(); kind = SqlTransaction.Kind.BEGIN; }
    |
        <START> { s = span(); } <TRANSACTION> { kind = SqlTransaction.Kind.BEGIN; }
    |
        <COMMIT> { s = span(); kind = SqlTransaction.Kind.COMMIT; }
    |
        <END> { s = span(); kind = SqlTransaction.Kind.COMMIT; }
    |
        <ROLLBACK> { s = span(); kind = SqlTransaction.Kind.ROLLBACK; }
    |
        <SAVEPOINT> { s = span(); kind = SqlTransaction.Kind.SAVEPOINT; } savepoint = SimpleIdentifier()
    |
        <RELEASE> { s = span(); kind = SqlTransaction.Kind.RELEASE; } [ <SAVEPOINT> ]
        savepoint = SimpleIdentifier()
    )
    [ <WORK> | <TRANSACTION> ]
    [
        <TO> [ <SAVEPOINT> ] savepoint = SimpleIdentifier()
        {
            if (kind != SqlTransaction.Kind.ROLLBACK) {
                throw new CoilgunParseError(SqlState.SYNTAX_ERROR, "syntax error at or near \"TO\"", getPos());
            }
            kind = SqlTransaction.Kind.ROLLBACK_TO;
        }
    ]
    SkipToStatementEnd()
    {
        return new SqlTransaction(s.end(this), kind, savepoint == null ? null : savepoint.getSimple());
    }
}

/**
 * Parses {@code COPY stream [(column, ...)] FROM STDIN} with options either as Postgres writes them today,
 * {@code [WITH] (FORMAT csv, HEADER [true|match], DELIMITER ',', NULL '', QUOTE '"', ESCAPE '"')}, or in the old
 * style {@code [WITH] CSV HEADER DELIMITER [AS] ','} (what psql's \copy passes on).
 */
SqlNode SqlCopy() :
{
    final Span s;
    final SqlIdentifier name;
    SqlNodeList columns = null;
    final List<SqlNode> copyOptions = new ArrayList<SqlNode>();
}
{
    <COPY> { s = span(); } name = SimpleIdentifier()
    [ columns = ParenthesizedSimpleIdentifierList() ]
    (
        <FROM> <STDIN>
    |
        <TO> <STDOUT> {
            throw new CoilgunParseError(SqlState.FEATURE_NOT_SUPPORTED, "COPY " + name.getSimple()
                + " TO STDOUT is not supported: a stream's events are not kept as rows; use COPY (SUBSCRIBE "
                + name.getSimple() + ") TO STDOUT for its events from now on", s.end(this));
        }
    )
    [ <WITH> ]
    [
        <LPAREN> CopyOption(copyOptions) ( <COMMA> CopyOption(copyOptions) )* <RPAREN>
    |
        ( CopyLegacyOption(copyOptions) )+
    ]
    {
        return new SqlCopy(s.end(this), name, columns, new SqlNodeList(copyOptions, s.end(this)));
    }
}

/** One {@code name [value]} of COPY's parenthesized options; a name alone means true. */
void CopyOption(List<SqlNode> list) :
{
    final SqlIdentifier key;
    SqlLiteral value = null;
    SqlIdentifier word;
    SqlNode node;
}
{
    key = CopyOptionName()
    [
        node = StringLiteral() { value = (SqlLiteral) node; }
    |
        word = SimpleIdentifier() { value = SqlLiteral.createCharString(word.getSimple(), word.getParserPosition()); }
    |
        <MATCH> { value = SqlLiteral.createCharString("match", getPos()); }
    |
        <BINARY> { value = SqlLiteral.createCharString("binary", getPos()); }
    |
        <TRUE> { value = SqlLiteral.createBoolean(true, getPos()); }
    |
        <FALSE> { value = SqlLiteral.createBoolean(false, getPos()); }
    |
        value = UnsignedNumericLiteral()
    ]
    {
        list.add(new SqlOption(key.getParserPosition(), key,
            value != null ? value : SqlLiteral.createBoolean(true, key.getParserPosition())));
    }
}

/** One old-style COPY option: {@code CSV}, {@code HEADER}, {@code BINARY}, or {@code name [AS] 'string'}. */
void CopyLegacyOption(List<SqlNode> list) :
{
    final SqlIdentifier key;
    SqlLiteral value = null;
    SqlNode node;
}
{
    key = CopyOptionName()
    [ [ <AS> ] node = StringLiteral() { value = (SqlLiteral) node; } ]
    {
        list.add(new SqlOption(key.getParserPosition(), key,
            value != null ? value : SqlLiteral.createBoolean(true, key.getParserPosition())));
    }
}

/** A COPY option name: an identifier, or the reserved words NULL, ESCAPE and BINARY. */
SqlIdentifier CopyOptionName() :
{
    final SqlIdentifier id;
}
{
    id = SimpleIdentifier() { return id; }
|
    <NULL> { return new SqlIdentifier("null", getPos()); }
|
    <ESCAPE> { return new SqlIdentifier("escape", getPos()); }
|
    <BINARY> { return new SqlIdentifier("binary", getPos()); }
}

/** Consumes every token up to the next {@code ;} or the end of input. */
JAVACODE void SkipToStatementEnd() {
    while (getToken(1).kind != SEMICOLON && getToken(1).kind != EOF) {
        getNextToken();
    }
}

/** Parses {@code IF EXISTS}, returning whether it was there. */
boolean IfExistsOpt() :
{
}
{
    LOOKAHEAD(2) <IF> <EXISTS> { return true; }
|
    { return false; }
}

/** Parses {@code WITH (key = literal, ...)}. */
SqlNodeList OptionList() :
{
    final Span s;
    final List<SqlNode> list = new ArrayList<SqlNode>();
}
{
    <WITH> { s = span(); }
    <LPAREN>
    AddOption(list) ( <COMMA> AddOption(list) )*
    <RPAREN>
    {
        return new SqlNodeList(list, s.end(this));
    }
}

/** Parses {@code key = literal}. */
void AddOption(List<SqlNode> list) :
{
    final SqlIdentifier key;
    final SqlLiteral value;
}
{
    key = SimpleIdentifier() <EQ> value = OptionValue()
    {
        list.add(new SqlOption(Span.of(key).end(value), key, value));
    }
}

/** Parses an option value: a string, a signed number, TRUE or FALSE. */
SqlLiteral OptionValue() :
{
    final String p;
    final SqlLiteral literal;
}
{
    p = SimpleStringLiteral() {
        return SqlLiteral.createCharString(p, getPos());
    }
|
    literal = NumericLiteral() {
        return literal;
    }
|
    <TRUE> {
        return SqlLiteral.createBoolean(true, getPos());
    }
|
    <FALSE> {
        return SqlLiteral.createBoolean(false, getPos());
    }
}

/**
 * Parses the rest of
 * {@code CREATE METRIC [IF NOT EXISTS] name AS <select> OVER <window> [WITH (key = literal, ...)]}.
 * The query is Calcite's own SqlSelect() production, which stops before OVER.
 */
SqlCreate SqlCreateMetric(Span s, boolean replace) :
{
    final boolean ifNotExists;
    final SqlIdentifier name;
    final SqlSelect query;
    final SqlWindowSpec window;
    final SqlIdentifier keyword;
    SqlNodeList optionList = SqlNodeList.EMPTY;
}
{
    <METRIC> ifNotExists = IfNotExistsOpt() name = SimpleIdentifier()
    <AS> query = SqlSelect()
    (
        <OVER> window = MetricWindow()
    |
        // A SELECT ending in a function call ("GROUP BY lower(x) OVER SLIDING
        // ...") has already read "OVER sliding" as a named-window reference
        // (Calcite's function-call production takes OVER greedily; this is the
        // "common prefix OVER" warning JavaCC prints). Take the keyword back.
        LOOKAHEAD({ ParserSupport.endsWithWindowKeyword(query) })
        { keyword = ParserSupport.takeBackWindowKeyword(query); }
        window = MetricWindowRest(Span.of(keyword), ParserSupport.windowKind(keyword))
    )
    [ optionList = OptionList() ]
    {
        return new SqlCreateMetric(s.end(this), replace, ifNotExists, name,
            query, window, optionList);
    }
}

/**
 * Parses a metric window:
 * {@code SLIDING <size> | TUMBLING <size> | INFINITE}, then optionally
 * {@code DELAYED BY <size>}.
 */
SqlWindowSpec MetricWindow() :
{
    final SqlWindowSpec.Kind kind;
}
{
    (
        <SLIDING> { kind = SqlWindowSpec.Kind.SLIDING; }
    |
        <TUMBLING> { kind = SqlWindowSpec.Kind.TUMBLING; }
    |
        <INFINITE> { kind = SqlWindowSpec.Kind.INFINITE; }
    )
    {
        return MetricWindowRest(span(), kind);
    }
}

/**
 * Parses what follows the window kind: the size (not for INFINITE), then
 * optionally {@code DELAYED BY <size>}.
 */
SqlWindowSpec MetricWindowRest(Span s, SqlWindowSpec.Kind kind) :
{
    SqlIntervalLiteral size = null;
    SqlIntervalLiteral delay = null;
}
{
    [
        LOOKAHEAD({ kind != SqlWindowSpec.Kind.INFINITE })
        size = WindowInterval()
    ]
    [ <DELAYED> <BY> delay = WindowInterval() ]
    {
        return new SqlWindowSpec(s.end(this), kind, size, delay);
    }
}

/**
 * Parses a window size: an interval literal ({@code INTERVAL '5' MINUTE}) or
 * the short form {@code <number> <unit>} ({@code 5 MINUTES}, {@code 1 HOUR},
 * {@code 500 MILLISECONDS}), which becomes the equivalent interval literal.
 * Checks that it is a positive duration.
 */
SqlIntervalLiteral WindowInterval() :
{
    final SqlLiteral literal;
    final SqlIntervalLiteral interval;
    final SqlNumericLiteral number;
}
{
    (
        literal = IntervalLiteral() {
            interval = ParserSupport.interval(literal);
        }
    |
        number = UnsignedNumericLiteral()
        (
            <MILLISECOND> | <MILLISECONDS>
        |   <SECOND> | <SECONDS>
        |   <MINUTE> | <MINUTES>
        |   <HOUR> | <HOURS>
        |   <DAY> | <DAYS>
        |   <WEEK> | <WEEKS>
        |   <MONTH> | <MONTHS>
        |   <YEAR> | <YEARS>
        )
        {
            interval = ParserSupport.shortInterval(number, token.image,
                Span.of(number).end(this));
        }
    )
    {
        return ParserSupport.checkWindowInterval(interval);
    }
}

/**
 * Parses an INSERT (Calcite's SqlInsert() production), optionally followed by
 * {@code RETURNING *}.
 */
SqlNode CoilgunInsert() :
{
    final SqlNode insert;
    final List<SqlNode> returning = new ArrayList<SqlNode>();
}
{
    insert = SqlInsert()
    (
        <RETURNING>
        AddSelectItem(returning) ( <COMMA> AddSelectItem(returning) )*
        {
            return ParserSupport.insertReturning(Span.of(insert).end(this),
                (SqlInsert) insert, returning);
        }
    |
        { return insert; }
    )
}

/**
 * Parses Postgres' {@code :: type} after an expression (type names as Postgres spells them, optionally with
 * {@code []}); {@link io.coilgun.sql.parser.PgCast} turns it into a CAST or a catalog function.
 */
void InfixCast(List<Object> list, ExprContext exprContext, Span s) :
{
    final SqlDataTypeSpec dt;
    boolean array = false;
}
{
    <INFIX_CAST> {
        checkNonQueryExpression(exprContext);
    }
    dt = DataType()
    [ LOOKAHEAD(2) <LBRACKET> <RBRACKET> { array = true; } ]
    {
        list.add(new SqlParserUtil.ToTreeListItem(io.coilgun.sql.parser.PgCast.operator(array), s.pos()));
        list.add(dt);
    }
}

/** Postgres' {@code ^}, a power (see PgPower), where Calcite's grammar reads a bitwise exclusive or. */
void PgCaret(List<Object> list, ExprContext exprContext, Span s) :
{
}
{
    <CARET> {
        checkNonQueryExpression(exprContext);
        list.add(new SqlParserUtil.ToTreeListItem(io.coilgun.sql.parser.PgPower.INSTANCE, getPos()));
    }
    AddExpression2b(list, ExprContext.ACCEPT_SUB_QUERY)
}

/**
 * Parses {@code COPY ( statement ) TO STDOUT [[WITH] options]}: any statement in the parentheses (SUBSCRIBE,
 * SHOW, SELECT, ...), its rows sent as COPY data. Options as for COPY FROM.
 */
SqlNode SqlCopyTo() :
{
    final Span s;
    final SqlNode query;
    final SqlParserPos open;
    final SqlParserPos close;
    final List<SqlNode> copyOptions = new ArrayList<SqlNode>();
}
{
    <COPY> { s = span(); } <LPAREN> { open = getPos(); } query = SqlStmt() <RPAREN> { close = getPos(); }
    <TO> <STDOUT>
    [ <WITH> ]
    [
        <LPAREN> CopyOption(copyOptions) ( <COMMA> CopyOption(copyOptions) )* <RPAREN>
    |
        ( CopyLegacyOption(copyOptions) )+
    ]
    {
        return new SqlCopyTo(s.end(this), query, open, close, new SqlNodeList(copyOptions, s.end(this)));
    }
}

/**
 * Parses {@code REPLAY SELECT … FROM stream [WHERE …] GROUP BY … OVER <window> [BETWEEN <literal> AND <literal>]}:
 * the SELECT and window of CREATE METRIC (the same OVER take-back), then the event times replayed.
 */
SqlNode SqlReplay() :
{
    final Span s;
    final SqlSelect query;
    final SqlWindowSpec window;
    final SqlIdentifier keyword;
    SqlNode from = null;
    SqlNode to = null;
}
{
    <REPLAY> { s = span(); } query = SqlSelect()
    (
        <OVER> window = MetricWindow()
    |
        LOOKAHEAD({ ParserSupport.endsWithWindowKeyword(query) })
        { keyword = ParserSupport.takeBackWindowKeyword(query); }
        window = MetricWindowRest(Span.of(keyword), ParserSupport.windowKind(keyword))
    )
    [ <BETWEEN> from = Literal() <AND> to = Literal() ]
    {
        return new SqlReplay(s.end(this), query, window, (SqlLiteral) from, (SqlLiteral) to);
    }
}

/** Parses {@code SUBSCRIBE [TO] <metric | stream> [WHERE condition]}. */
SqlNode SqlSubscribe() :
{
    final Span s;
    final SqlIdentifier name;
    SqlNode where = null;
}
{
    <SUBSCRIBE> { s = span(); } [ <TO> ] name = SimpleIdentifier()
    [ <WHERE> where = Expression(ExprContext.ACCEPT_NON_QUERY) ]
    {
        return new SqlSubscribe(s.end(this), name, where);
    }
}

/**
 * Parses the named-cursor statements drivers send for server-side cursors: {@code DECLARE name [BINARY]
 * [INSENSITIVE | ASENSITIVE] [[NO] SCROLL] CURSOR [WITH | WITHOUT HOLD] FOR query}, {@code FETCH | MOVE [direction]
 * [FROM | IN] name} with Postgres' directions (NEXT, PRIOR, FIRST, LAST, ABSOLUTE n, RELATIVE n, n, ALL,
 * FORWARD [n | ALL], BACKWARD [n | ALL]) and {@code CLOSE name | ALL}.
 */
SqlNode SqlCursor() :
{
    final Span s;
    SqlIdentifier name = null;
    SqlNode query;
    SqlParserPos queryStart;
    boolean hold = false;
    boolean noScroll = false;
    SqlCursor.Kind kind;
    SqlCursor.Direction direction = SqlCursor.Direction.FORWARD;
    long count = 1;
}
{
    (
        <DECLARE> { s = span(); } name = SimpleIdentifier()
        ( <BINARY> | <INSENSITIVE> | <ASENSITIVE> | <NO> <SCROLL> { noScroll = true; } | <SCROLL> )*
        <CURSOR>
        [ <WITH> <HOLD> { hold = true; } | <WITHOUT> <HOLD> ]
        <FOR> { queryStart = getToken(1) == null ? getPos() : new SqlParserPos(getToken(1).beginLine,
            getToken(1).beginColumn); }
        query = OrderedQueryOrExpr(ExprContext.ACCEPT_QUERY)
        {
            return new SqlCursor(s.end(this), SqlCursor.Kind.DECLARE, name.getSimple(), query, queryStart, hold,
                noScroll, SqlCursor.Direction.FORWARD, 0);
        }
    |
        ( <FETCH> { s = span(); kind = SqlCursor.Kind.FETCH; } | <MOVE> { s = span(); kind = SqlCursor.Kind.MOVE; } )
        [
            LOOKAHEAD(<NEXT> CursorTarget()) <NEXT>
        |
            LOOKAHEAD(<PRIOR> CursorTarget()) <PRIOR> { direction = SqlCursor.Direction.BACKWARD; }
        |
            LOOKAHEAD(<FIRST> CursorTarget()) <FIRST> { direction = SqlCursor.Direction.ABSOLUTE; }
        |
            LOOKAHEAD(<LAST> CursorTarget()) <LAST> { direction = SqlCursor.Direction.ABSOLUTE; count = -1; }
        |
            <ABSOLUTE> { direction = SqlCursor.Direction.ABSOLUTE; } count = SignedCursorCount()
        |
            <RELATIVE> { direction = SqlCursor.Direction.RELATIVE; } count = SignedCursorCount()
        |
            LOOKAHEAD({ getToken(1).kind == IDENTIFIER && getToken(1).image.equalsIgnoreCase("FORWARD") })
            <IDENTIFIER> [ count = CursorCount() ]
        |
            LOOKAHEAD({ getToken(1).kind == IDENTIFIER && getToken(1).image.equalsIgnoreCase("BACKWARD") })
            <IDENTIFIER> { direction = SqlCursor.Direction.BACKWARD; } [ count = CursorCount() ]
        |
            count = CursorCount()
        ]
        [ <FROM> | <IN> ] name = SimpleIdentifier()
        {
            return new SqlCursor(s.end(this), kind, name.getSimple(), null, null, false, false, direction, count);
        }
    |
        <CLOSE> { s = span(); } ( <ALL> | name = SimpleIdentifier() )
        {
            return new SqlCursor(s.end(this), SqlCursor.Kind.CLOSE, name == null ? null : name.getSimple(), null,
                null, false, false, SqlCursor.Direction.FORWARD, 0);
        }
    )
}

/** What FETCH and MOVE end with: [FROM | IN] name (a lookahead: NEXT, PRIOR, FIRST, LAST may be cursor names). */
void CursorTarget() :
{
}
{
    [ <FROM> | <IN> ] SimpleIdentifier()
}

/** ABSOLUTE's and RELATIVE's row number: a number, negative from the end (or backwards). */
long SignedCursorCount() :
{
    final SqlLiteral n;
    boolean negative = false;
}
{
    [ <MINUS> { negative = true; } | <PLUS> ]
    n = UnsignedNumericLiteral() { return negative ? -n.getValueAs(Long.class) : n.getValueAs(Long.class); }
}

/** A FETCH's or MOVE's row count: a number (negative: the other way), or ALL ({@link Long#MAX_VALUE}). */
long CursorCount() :
{
    final long n;
}
{
    <ALL> { return Long.MAX_VALUE; }
|
    n = SignedCursorCount() { return n; }
}

/**
 * Parses {@code CREATE ROLE|USER name [WITH] option ...}, {@code ALTER ROLE|USER name [WITH] option ...} and
 * {@code DROP ROLE|USER [IF EXISTS] name [, ...]}: an option is a word, or PASSWORD with a string or NULL. Which
 * options and forms each verb takes is the compiler's to say.
 */
SqlNode SqlRoleStatement() :
{
    final Span s;
    final SqlRoleStatement.Verb verb;
    boolean user = false;
    boolean ifExists = false;
    final List<SqlNode> names = new ArrayList<SqlNode>();
    final List<SqlNode> roleOptions = new ArrayList<SqlNode>();
    SqlIdentifier id;
}
{
    (
        <CREATE> { s = span(); verb = SqlRoleStatement.Verb.CREATE; }
    |
        <ALTER> { s = span(); verb = SqlRoleStatement.Verb.ALTER; }
    |
        <DROP> { s = span(); verb = SqlRoleStatement.Verb.DROP; }
    )
    ( <ROLE> | <USER> { user = true; } )
    ifExists = IfExistsOpt()
    id = SimpleIdentifier() { names.add(id); }
    ( <COMMA> id = SimpleIdentifier() { names.add(id); } )*
    [ <WITH> ]
    ( RoleOption(roleOptions) )*
    {
        return new SqlRoleStatement(s.end(this), verb, user, ifExists, new SqlNodeList(names, s.end(this)),
            new SqlNodeList(roleOptions, s.end(this)));
    }
}

/** A role option: a word ({@code LOGIN}), or {@code PASSWORD 'secret'} / {@code PASSWORD NULL}. */
void RoleOption(List<SqlNode> list) :
{
    final SqlIdentifier key;
    final String value;
    final SqlParserPos valuePos;
}
{
    key = SimpleIdentifier()
    (
        { valuePos = getPos(); } value = SimpleStringLiteral()
        {
            list.add(new SqlOption(key.getParserPosition(), key, SqlLiteral.createCharString(value, valuePos)));
        }
    |
        <NULL> { list.add(new SqlOption(key.getParserPosition(), key, SqlLiteral.createNull(getPos()))); }
    |
        { list.add(key); }
    )
}

/**
 * Parses {@code GRANT privilege [, ...] ON [TABLE] name [, ...] TO role [, ...]}, {@code GRANT … ON SCHEMA name …}
 * and REVOKE … FROM.
 */
SqlNode SqlGrant() :
{
    final Span s;
    final boolean grant;
    final List<String> privileges = new ArrayList<String>();
    boolean onSchema = false;
    final List<SqlNode> objects = new ArrayList<SqlNode>();
    final List<SqlNode> roles = new ArrayList<SqlNode>();
    SqlIdentifier id;
}
{
    (
        <GRANT> { s = span(); grant = true; }
    |
        <REVOKE> { s = span(); grant = false; }
    )
    GrantPrivilege(privileges) ( <COMMA> GrantPrivilege(privileges) )*
    <ON>
    (
        <SCHEMA> { onSchema = true; } id = SimpleIdentifier() { objects.add(id); }
        ( <COMMA> id = SimpleIdentifier() { objects.add(id); } )*
    |
        [ <TABLE> ] id = CompoundIdentifier() { objects.add(id); }
        ( <COMMA> id = CompoundIdentifier() { objects.add(id); } )*
    )
    ( <TO> | <FROM> )
    id = SimpleIdentifier() { roles.add(id); }
    ( <COMMA> id = SimpleIdentifier() { roles.add(id); } )*
    {
        return new SqlGrant(s.end(this), grant, privileges, onSchema, new SqlNodeList(objects, s.end(this)),
            new SqlNodeList(roles, s.end(this)));
    }
}

/** One privilege of a GRANT or REVOKE, upper case; ALL [PRIVILEGES] is ALL. */
void GrantPrivilege(List<String> list) :
{
}
{
    <SELECT> { list.add("SELECT"); }
|
    <INSERT> { list.add("INSERT"); }
|
    <CREATE> { list.add("CREATE"); }
|
    <UPDATE> { list.add("UPDATE"); }
|
    <DELETE> { list.add("DELETE"); }
|
    <ALL> [ <PRIVILEGES> ] { list.add("ALL"); }
}
