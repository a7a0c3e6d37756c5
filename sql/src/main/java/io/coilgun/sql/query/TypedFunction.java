package io.coilgun.sql.query;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.apache.calcite.adapter.enumerable.CallImplementor;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.schema.FunctionParameter;
import org.apache.calcite.schema.ImplementableFunction;
import org.apache.calcite.schema.ScalarFunction;
import org.apache.calcite.schema.impl.ScalarFunctionImpl;

/**
 * A Java method as a SQL function whose return type is given rather than derived from the Java type: Calcite derives
 * no element type for a method returning a {@code List}, and {@code current_schemas(true)[1]} needs VARCHAR.
 */
final class TypedFunction implements ScalarFunction, ImplementableFunction {
    private final ScalarFunctionImpl method;
    private final Function<RelDataTypeFactory, RelDataType> returnType;
    private final List<FunctionParameter> parameters;

    /**
     * @param parameterTypes the SQL type of each parameter, null to derive it from the Java type
     */
    TypedFunction(Method method, Function<RelDataTypeFactory, RelDataType> returnType,
            List<Function<RelDataTypeFactory, RelDataType>> parameterTypes) {
        this.method = (ScalarFunctionImpl) ScalarFunctionImpl.create(method);
        this.returnType = returnType;
        List<FunctionParameter> derived = this.method.getParameters();
        this.parameters = new ArrayList<>();
        for (FunctionParameter p : derived) {
            Function<RelDataTypeFactory, RelDataType> given = parameterTypes.get(p.getOrdinal());
            parameters.add(given == null ? p : new FunctionParameter() {
                @Override
                public int getOrdinal() {
                    return p.getOrdinal();
                }

                @Override
                public String getName() {
                    return p.getName();
                }

                @Override
                public RelDataType getType(RelDataTypeFactory typeFactory) {
                    return given.apply(typeFactory);
                }

                @Override
                public boolean isOptional() {
                    return false;
                }
            });
        }
    }

    @Override
    public RelDataType getReturnType(RelDataTypeFactory typeFactory) {
        return returnType == null ? method.getReturnType(typeFactory) : returnType.apply(typeFactory);
    }

    @Override
    public List<FunctionParameter> getParameters() {
        return parameters;
    }

    @Override
    public CallImplementor getImplementor() {
        return method.getImplementor();
    }
}
