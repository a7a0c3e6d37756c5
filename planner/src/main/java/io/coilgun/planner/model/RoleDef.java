package io.coilgun.planner.model;

/**
 * One role of the catalog (CREATE ROLE): who may log in, and whether it is a superuser (every privilege, and the
 * only one who manages roles). Its password is kept only as a SCRAM-SHA-256 verifier, never in clear.
 *
 * @param verifier {@code SCRAM-SHA-256$<iterations>:<salt>$<StoredKey>:<ServerKey>}, or null: no password
 */
public record RoleDef(String name, boolean superuser, boolean login, String verifier) {
    private static final java.util.regex.Pattern DDL = java.util.regex.Pattern.compile(
            "CREATE ROLE (\\w+) WITH (SUPERUSER|NOSUPERUSER) (LOGIN|NOLOGIN)(?: PASSWORD '([^']*)')?");

    /** The role a record of the catalog holds ({@link #ddl()}). */
    public static RoleDef parse(String ddl) {
        java.util.regex.Matcher m = DDL.matcher(ddl);
        if (!m.matches()) {
            throw new IllegalArgumentException("not a role record: " + ddl);
        }
        return new RoleDef(m.group(1), m.group(2).equals("SUPERUSER"), m.group(3).equals("LOGIN"), m.group(4));
    }

    /** The record the durable catalog keeps: a CREATE ROLE of the role as it is now (the verifier, not a password). */
    public String ddl() {
        return "CREATE ROLE " + name + " WITH " + (superuser ? "SUPERUSER" : "NOSUPERUSER") + " "
                + (login ? "LOGIN" : "NOLOGIN") + (verifier == null ? "" : " PASSWORD '" + verifier + "'");
    }
}
