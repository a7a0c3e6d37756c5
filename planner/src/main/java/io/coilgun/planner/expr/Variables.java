package io.coilgun.planner.expr;

/**
 * The JEXL variable name of a column: {@code c_} and the column name with every character outside
 * {@code [A-Za-z0-9_]} written as {@code $xx$} (its code in hex; {@code $} only ever appears as that marker), so that
 * any SQL identifier (quoted ones included) becomes one valid JEXL identifier, never a JEXL keyword.
 */
public final class Variables {
    private Variables() {
    }

    public static String of(String column) {
        StringBuilder sb = new StringBuilder("c_");
        for (int i = 0; i < column.length(); i++) {
            char c = column.charAt(i);
            if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_') {
                sb.append(c);
            } else {
                sb.append('$').append(Integer.toHexString(c)).append('$');
            }
        }
        return sb.toString();
    }
}
