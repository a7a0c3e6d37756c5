package io.coilgun.sql.query;

import java.lang.reflect.Type;
import java.util.function.UnaryOperator;
import org.apache.calcite.adapter.enumerable.EnumerableConvention;
import org.apache.calcite.adapter.enumerable.EnumerableRel;
import org.apache.calcite.jdbc.CalcitePrepare;
import org.apache.calcite.plan.RelOptPlanner;
import org.apache.calcite.prepare.CalciteCatalogReader;
import org.apache.calcite.prepare.CalcitePrepareImpl;
import org.apache.calcite.prepare.Prepare;
import org.apache.calcite.rel.RelHomogeneousShuttle;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.validate.SqlValidator;
import org.apache.calcite.sql2rel.SqlRexConvertletTable;
import org.apache.calcite.tools.Program;
import org.apache.calcite.tools.Programs;

/**
 * Calcite's statement preparation with the client's numeric parameters as numerics ({@link NumericParameters}), sums
 * of bigints as numerics ({@link NumericSums}), and Postgres' casts, numeric division and power ({@link
 * PgConvertlets}): in the
 * conversion of SQL to relational expressions, and once more in the optimized plan, for what the planner's rules add
 * (an {@code avg} becomes a sum divided by a count, cast to the average's type).
 */
final class PgPrepare extends CalcitePrepareImpl {
    @Override
    protected SqlRexConvertletTable createConvertletTable() {
        return PgConvertlets.INSTANCE;
    }

    @Override
    protected CalcitePreparingStmt getPreparingStmt(CalcitePrepare.Context context, Type elementType,
            CalciteCatalogReader catalogReader, RelOptPlanner planner) {
        EnumerableRel.Prefer prefer = elementType == Object[].class ? EnumerableRel.Prefer.ARRAY
                : EnumerableRel.Prefer.CUSTOM;
        return new CalcitePreparingStmt(this, context, catalogReader, context.getTypeFactory(),
                context.getRootSchema(), prefer, createCluster(planner, new RexBuilder(context.getTypeFactory())),
                EnumerableConvention.INSTANCE, createConvertletTable()) {
            @Override
            public PreparedResult prepareSql(SqlNode query, SqlNode original, Class<?> runtimeContextClass,
                    SqlValidator validator, boolean needsValidation) {
                Relations rels = PgFunctions.CURRENT.get();
                if (rels != null) {
                    NumericParameters.cast(query, rels.numericParameters);
                }
                NumericSums.wrap(query);
                PgDatetimeOperators.replace(query);
                return super.prepareSql(query, original, runtimeContextClass, validator, needsValidation);
            }

            @Override
            protected SqlValidator createSqlValidator(Prepare.CatalogReader reader,
                    UnaryOperator<SqlValidator.Config> configTransform) {
                return PgValidator.create(context, (CalciteCatalogReader) reader, configTransform);
            }

            @Override
            protected Program getProgram() {
                Program exactTimestamps = (p, rel, traits, materializations, lattices) -> {
                    if (p.getExecutor() != null) {
                        p.setExecutor(EngineTimestamps.withoutTimestamps(p.getExecutor()));
                    }
                    return rel;
                };
                Program rewrite = (p, rel, traits, materializations, lattices) -> pgCasts(rel);
                Program timestamps = (p, rel, traits, materializations, lattices) -> EngineTimestamps.of(rel);
                return Programs.sequence(exactTimestamps, super.getProgram(), rewrite, timestamps);
            }
        };
    }

    private static RelNode pgCasts(RelNode plan) {
        return plan.accept(new RelHomogeneousShuttle() {
            @Override
            public RelNode visit(RelNode other) {
                RelNode visited = super.visit(other);
                return visited.accept(PgConvertlets.rewriter(visited.getCluster().getRexBuilder()));
            }
        });
    }
}
