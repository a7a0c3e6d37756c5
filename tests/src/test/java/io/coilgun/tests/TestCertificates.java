package io.coilgun.tests;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A self-signed certificate for 127.0.0.1 made with the JDK's keytool: a PKCS#12 keystore with its key, a truststore
 * with the certificate, and a file with their one password (what {@code coilgun kafka --tls-*} takes).
 */
record TestCertificates(Path keystore, Path truststore, Path passwordFile, String password) {
    static TestCertificates make(Path dir, String password) throws Exception {
        Files.createDirectories(dir);
        Path keystore = dir.resolve("broker.p12");
        Path truststore = dir.resolve("trust.p12");
        Path cert = dir.resolve("broker.crt");
        keytool("-genkeypair", "-alias", "broker", "-keyalg", "RSA", "-keysize", "2048", "-dname", "CN=127.0.0.1",
                "-ext", "SAN=IP:127.0.0.1,DNS:localhost", "-validity", "2", "-keystore", keystore.toString(),
                "-storetype", "PKCS12", "-storepass", password, "-keypass", password);
        keytool("-exportcert", "-alias", "broker", "-keystore", keystore.toString(), "-storetype", "PKCS12",
                "-storepass", password, "-rfc", "-file", cert.toString());
        keytool("-importcert", "-alias", "broker", "-file", cert.toString(), "-keystore", truststore.toString(),
                "-storetype", "PKCS12", "-storepass", password, "-noprompt");
        Path passwordFile = dir.resolve("tls-password");
        Files.writeString(passwordFile, password + "\n");
        return new TestCertificates(keystore, truststore, passwordFile, password);
    }

    /**
     * The certificate and its key as PEM files ({@code <dir>/node.crt}, {@code <dir>/node.key}, PKCS#8): what a
     * node's {@code --tls-cert} and {@code --tls-key} take, and its {@code --tls-ca} (the certificate signs itself).
     */
    Path[] pem(Path dir) throws Exception {
        java.security.KeyStore store = java.security.KeyStore.getInstance("PKCS12");
        try (var in = Files.newInputStream(keystore)) {
            store.load(in, password.toCharArray());
        }
        java.util.Base64.Encoder base64 = java.util.Base64.getMimeEncoder(64, "\n".getBytes());
        Path cert = dir.resolve("node.crt");
        Path key = dir.resolve("node.key");
        Files.writeString(cert, "-----BEGIN CERTIFICATE-----\n" + base64.encodeToString(
                store.getCertificate("broker").getEncoded()) + "\n-----END CERTIFICATE-----\n");
        Files.writeString(key, "-----BEGIN PRIVATE KEY-----\n" + base64.encodeToString(
                store.getKey("broker", password.toCharArray()).getEncoded()) + "\n-----END PRIVATE KEY-----\n");
        return new Path[] {cert, key};
    }

    /** {@code coilgun kafka}'s options for TLS with these files. */
    List<String> brokerOptions() {
        return List.of("--tls-keystore", keystore.toString(), "--tls-truststore", truststore.toString(),
                "--tls-password-file", passwordFile.toString());
    }

    private static void keytool(String... args) throws Exception {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        if (p.waitFor() != 0) {
            throw new IllegalStateException("keytool " + String.join(" ", args) + ": " + out);
        }
    }
}
