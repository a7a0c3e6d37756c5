package io.coilgun.server.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coilgun.pgwire.auth.Authentication;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** auth, user.<name>, tls-cert and tls-key in the config file, and the start-up errors they can cause. */
class SecurityConfigTest {
    @TempDir
    Path dir;

    private NodeConfig read(String properties) throws IOException {
        Path file = Files.writeString(dir.resolve("coilgun.properties"), properties);
        return io.coilgun.server.boot.Main.parse("--config", file.toString());
    }

    @Test
    void defaultIsTrustWithoutTls() {
        SecurityConfig security = NodeConfig.defaults().security();
        assertEquals(Authentication.Method.TRUST, security.authentication().method());
        assertNull(security.tls());
    }

    @Test
    void readsUsersAndMethod() throws IOException {
        String verifier = "SCRAM-SHA-256$4096:W22ZaJ0SNY7soEsUEjb6gQ==$WG5d8oPm3OtcPnkdi4Uo7BkeZkBFzpcXkuLmtbsT4qY=:"
                + "wfPLwcE6nTWhTAmQ7tl2KeoiWGPlZqQxSrmfPwDl2dU=";
        NodeConfig config = read("port = 6000\nauth = scram\nuser.alice = s3cret\nuser.bob = " + verifier + "\n");
        assertEquals(6000, config.port());
        Authentication auth = config.security().authentication();
        assertEquals(Authentication.Method.SCRAM_SHA_256, auth.method());
        assertEquals(Set.of("alice", "bob"), auth.users());
        Authentication password = read("auth = password\nuser.alice = s3cret\nuser.bob = " + verifier + "\n")
                .security().authentication();
        assertEquals(Authentication.Method.PASSWORD, password.method());
        assertTrue(password.checkPassword("bob", "pencil"), "docs/operations.md's example verifier is pencil's");
        assertTrue(password.checkPassword("alice", "s3cret"));
    }

    @Test
    void misconfigurationsStopTheStartWithOneLine() throws IOException {
        assertStartupError("auth = scram\n", "auth scram needs users: add lines user.<name> = <password or "
                + "SCRAM-SHA-256 verifier> to the --config file");
        assertStartupError("auth = kerberos\nuser.a = b\n", "unknown auth method 'kerberos'; use trust, scram or password");
        assertStartupError("user.alice = s3cret\n", "users are configured (user.alice …) but auth is trust");
        assertStartupError("auth = scram\nuser.alice = SCRAM-SHA-256$4096:x\n",
                "bad user setting: malformed SCRAM-SHA-256 verifier");
        assertStartupError("auth = scram\nuser.alice =\n", "bad user setting: empty password for user \"alice\"");
        assertStartupError("tls-cert = " + dir.resolve("c.pem") + "\n", "TLS needs both --tls-cert and --tls-key");
        assertStartupError("tls-cert = " + dir.resolve("c.pem") + "\ntls-key = " + dir.resolve("k.pem") + "\n",
                "TLS file " + dir.resolve("c.pem") + " does not exist");
        StartupException unknown = assertThrows(StartupException.class, () -> read("users = alice:x\n"));
        assertTrue(unknown.getMessage().contains("unknown setting 'users'"), unknown.getMessage());
    }

    /** Trust is the default on a loopback address only: beyond it, the node must be told how clients log in. */
    @Test
    void trustIsTheDefaultOnLoopbackOnly() throws IOException {
        assertEquals(Authentication.Method.TRUST, read("host = 127.0.0.1\n").security().authentication().method());
        assertEquals(Authentication.Method.TRUST, read("host = localhost\n").security().authentication().method());
        StartupException e = assertThrows(StartupException.class, () -> read("host = 0.0.0.0\n"));
        assertTrue(e.getMessage().startsWith("pgwire would listen on 0.0.0.0, beyond this machine: say how clients "
                + "log in, with --auth scram"), e.getMessage());
        assertEquals(Authentication.Method.TRUST, read("host = 0.0.0.0\nauth = trust\n").security().authentication()
                .method(), "trust when asked for");
        assertEquals(Authentication.Method.SCRAM_SHA_256, read("host = 0.0.0.0\nauth = scram\nuser.a = b\n")
                .security().authentication().method());
    }

    private void assertStartupError(String properties, String expectedStart) throws IOException {
        NodeConfig config = read(properties);
        StartupException e = assertThrows(StartupException.class, () -> {
            config.security().authentication();
            config.security().tls();
        }, properties);
        assertTrue(e.getMessage().startsWith(expectedStart), e.getMessage());
        assertTrue(!e.getMessage().contains("\n"), e.getMessage());
    }

    @Test
    void toStringHidesSecrets() {
        SecurityConfig security = new SecurityConfig("scram", Map.of("alice", "s3cret"), null, null);
        assertTrue(!security.toString().contains("s3cret"), security.toString());
    }
}
