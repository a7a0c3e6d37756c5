package io.coilgun.pgwire.tls;

import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslProvider;
import java.nio.file.Files;
import java.nio.file.Path;
import javax.net.ssl.SSLException;

/**
 * The server's TLS certificate and key, from PEM files (the certificate chain, then an unencrypted PKCS#8 or
 * PKCS#1 private key), as Postgres' ssl_cert_file and ssl_key_file. A client's SSLRequest is answered 'S' and
 * the connection continues inside TLS (JDK provider, TLS 1.2 and 1.3).
 */
public final class ServerTls {
    private final SslContext context;
    private final Path certificate;

    private ServerTls(SslContext context, Path certificate) {
        this.context = context;
        this.certificate = certificate;
    }

    /**
     * Loads the PEM files.
     *
     * @throws IllegalArgumentException with a one-line reason when a file is missing, unreadable or not PEM
     */
    public static ServerTls fromPem(Path certificate, Path privateKey) {
        for (Path file : new Path[] {certificate, privateKey}) {
            if (!Files.isRegularFile(file)) {
                throw new IllegalArgumentException("TLS file " + file + " does not exist");
            }
            if (!Files.isReadable(file)) {
                throw new IllegalArgumentException("TLS file " + file + " is not readable");
            }
        }
        try {
            SslContext context = SslContextBuilder.forServer(certificate.toFile(), privateKey.toFile())
                    .sslProvider(SslProvider.JDK)
                    .protocols("TLSv1.3", "TLSv1.2")
                    .build();
            return new ServerTls(context, certificate);
        } catch (SSLException | IllegalArgumentException e) {
            Throwable root = e;
            while (root.getCause() != null && root.getCause() != root) {
                root = root.getCause();
            }
            throw new IllegalArgumentException("cannot use TLS certificate " + certificate + " with key " + privateKey
                    + ": " + (root.getMessage() != null ? root.getMessage() : root.toString()), e);
        }
    }

    /** The same certificate and key as the JDK's TLS context (the node's HTTPS listener serves with it). */
    public javax.net.ssl.SSLContext jdkContext() {
        return ((io.netty.handler.ssl.JdkSslContext) context).context();
    }

    /** A new handler for one connection, to put first in its pipeline. */
    public SslHandler newHandler(ByteBufAllocator allocator) {
        return context.newHandler(allocator);
    }

    @Override
    public String toString() {
        return "ServerTls[" + certificate + "]";
    }
}
