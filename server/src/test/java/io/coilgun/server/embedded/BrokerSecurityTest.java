package io.coilgun.server.embedded;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BrokerSecurityTest {
    @TempDir
    Path dir;

    @Test
    void scramUsersFromAFileMakeASaslListenerAndTheFormattersCredentials() throws Exception {
        Path file = dir.resolve("users.properties");
        Files.writeString(file, "broker = b-pass\nalice = a\\\\pass\n");
        BrokerSecurity s = BrokerSecurity.scram(file, "broker");
        assertEquals(Map.of("broker", "b-pass", "alice", "a\\pass"), s.users());
        assertEquals("SASL_PLAINTEXT", s.protocol());
        assertEquals(List.of("SCRAM-SHA-256=[name=alice,password=a\\pass]",
                "SCRAM-SHA-256=[name=broker,password=b-pass]"), s.formatArguments());
        Properties p = new Properties();
        s.configure(p);
        assertEquals("SCRAM-SHA-256", p.get("sasl.mechanism.inter.broker.protocol"));
        assertEquals("org.apache.kafka.common.security.scram.ScramLoginModule required username=\"broker\" "
                + "password=\"b-pass\";", p.get("listener.name.sasl_plaintext.scram-sha-256.sasl.jaas.config"));
        assertThrows(IllegalArgumentException.class, () -> BrokerSecurity.scram(file, "carol"));
        assertFalse(BrokerSecurity.scram(null, "broker").scram());
        assertEquals("PLAINTEXT", BrokerSecurity.none().protocol());
    }

    @Test
    void tlsMakesTheListenerSaslSslOrSsl() throws Exception {
        Path users = dir.resolve("users.properties");
        Files.writeString(users, "broker = b-pass\n");
        Path password = dir.resolve("pw");
        Files.writeString(password, "store-pass\n");
        BrokerSecurity.Tls tls = BrokerSecurity.Tls.of(dir.resolve("k.p12"), dir.resolve("t.p12"), password);
        assertEquals("store-pass", tls.password());
        BrokerSecurity both = BrokerSecurity.scram(users, "broker", tls);
        assertEquals("SASL_SSL", both.protocol());
        Properties p = new Properties();
        both.configure(p);
        assertEquals(dir.resolve("k.p12").toAbsolutePath().toString(), p.get("ssl.keystore.location"));
        assertEquals("store-pass", p.get("ssl.truststore.password"));
        assertEquals("org.apache.kafka.common.security.scram.ScramLoginModule required username=\"broker\" "
                + "password=\"b-pass\";", p.get("listener.name.sasl_ssl.scram-sha-256.sasl.jaas.config"));
        assertEquals("SSL", BrokerSecurity.scram(null, "broker", tls).protocol());
        assertEquals(null, BrokerSecurity.Tls.of(null, null, null));
        assertThrows(IllegalArgumentException.class, () -> BrokerSecurity.Tls.of(dir.resolve("k.p12"), null, password));
    }
}
