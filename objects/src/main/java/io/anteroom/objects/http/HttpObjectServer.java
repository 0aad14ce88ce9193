package io.anteroom.objects.http;

import io.anteroom.objects.ObjectTransport;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import java.net.URI;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Predicate;

/**
 * Serves an {@link ObjectTransport} (normally the local transport of a runtime) over HTTP, so
 * that other processes can reach its objects with {@link HttpObjectTransport} or
 * {@link RemoteObjects}.
 *
 * <p>Protocol: {@code POST /objects/{namespace}/{id}/{method}} with the codec-encoded arguments as
 * the body; the response body is the codec-encoded reply (the result or the object's exception,
 * both with status 200). Errors of the request itself are plain-text messages: 400 malformed path,
 * id or request, 404 unknown namespace or path, 405 not a POST, 413 body above the limit, 503 the
 * runtime refused the call (overloaded, closing), 500 anything else the transport failed with.
 *
 * <p>Invariants:
 * <ul>
 *   <li>The response is written only when the transport's future completes, i.e. when the
 *       object's output gate released the reply: the HTTP response <em>is</em> the held output,
 *       so a client never sees a result whose writes are not durable.</li>
 *   <li>The event loop never blocks: each call is handed to a virtual thread, and the reply is
 *       written back on the request's own event-loop context.</li>
 *   <li>Each request is delivered to the transport at most once; the server never retries.</li>
 * </ul>
 *
 * <pre>{@code
 * try (HttpObjectServer server = HttpObjectServer.builder(runtime.transport())
 *         .port(8081)                        // default: 127.0.0.1, port 0 (any free port)
 *         .start()) {
 *     System.out.println("objects served at " + server.uri());
 *     ...
 * }
 * }</pre>
 */
public final class HttpObjectServer implements AutoCloseable {
    /** Content type of encoded arguments and replies. */
    static final String CODEC_CONTENT_TYPE = "application/octet-stream";
    static final String TEXT_CONTENT_TYPE = "text/plain; charset=utf-8";

    private final ObjectTransport transport;
    private final Predicate<String> knownNamespace;
    private final long maxBodyBytes;
    private final Duration closeGracePeriod;
    private final Vertx vertx;
    private final boolean ownsVertx;
    private final HttpServer server;
    /** Virtual threads need no shutdown: one executor serves every server of the process. */
    private static final ExecutorService CALLERS = Executors.newThreadPerTaskExecutor(
            Thread.ofVirtual().name("http-object-call-", 0).factory());
    private final String host;
    private final AtomicBoolean closed = new AtomicBoolean();

    private HttpObjectServer(Builder b) {
        this.transport = b.transport;
        this.knownNamespace = b.knownNamespace;
        this.maxBodyBytes = b.maxBodyBytes;
        this.closeGracePeriod = b.closeGracePeriod;
        this.ownsVertx = b.vertx == null;
        this.vertx = ownsVertx ? Vertx.vertx() : b.vertx;
        this.host = b.host;
        HttpServerOptions options = new HttpServerOptions().setHost(b.host).setPort(b.port).setTcpNoDelay(true)
                .setHttp2ClearTextEnabled(false);    // the protocol is plain HTTP/1.1 with keep-alive
        this.server = vertx.createHttpServer(options).requestHandler(this::handle);
        try {
            server.listen().await(30, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            closeOwnedVertx();
            throw new IllegalStateException("HTTP object server did not bind " + b.host + ":" + b.port + " within 30 s", e);
        } catch (Exception e) {
            closeOwnedVertx();
            throw new IllegalStateException("HTTP object server could not bind " + b.host + ":" + b.port + ": " + e.getMessage(), e);
        }
    }

    /** A builder for a server in front of {@code transport}. */
    public static Builder builder(ObjectTransport transport) {
        return new Builder(transport);
    }

    /** The port actually bound (useful with port 0). */
    public int actualPort() {
        return server.actualPort();
    }

    /** The base URI of this server, e.g. {@code http://127.0.0.1:40123}, for {@link RemoteObjects#connect}. */
    public URI uri() {
        String h = host.contains(":") ? '[' + host + ']' : host;
        return URI.create("http://" + h + ':' + actualPort());
    }

    /**
     * Stops accepting connections, lets calls in flight finish and send their replies (up to the
     * grace period, default 30 s), then releases the port. Does not close the transport.
     */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) return;
        try {
            server.shutdown(closeGracePeriod.toMillis(), TimeUnit.MILLISECONDS)
                    .await(closeGracePeriod.toMillis() + 5_000, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw new IllegalStateException("HTTP object server on port " + actualPort() + " did not shut down within "
                    + closeGracePeriod.plusSeconds(5), e);
        } catch (Exception e) {
            throw new IllegalStateException("HTTP object server on port " + actualPort() + " failed to shut down: " + e.getMessage(), e);
        } finally {
            closeOwnedVertx();
        }
    }

    private void closeOwnedVertx() {
        if (ownsVertx) {
            try {
                vertx.close().await(30, TimeUnit.SECONDS);
            } catch (Exception e) {
                throw new IllegalStateException("closing the Vert.x instance of the HTTP object server failed: " + e.getMessage(), e);
            }
        }
    }

    // ---- request handling (event loop) ----

    private void handle(HttpServerRequest request) {
        String path = request.path();
        if (!ObjectPaths.isCallPath(path)) {
            reject(request, 404, "no such endpoint " + ObjectPaths.quote(String.valueOf(path)) + "; calls are " + ObjectPaths.FORMAT);
            return;
        }
        if (request.method() != HttpMethod.POST) {
            request.response().putHeader(HttpHeaders.ALLOW, "POST");
            reject(request, 405, "method " + request.method() + " not allowed; calls are " + ObjectPaths.FORMAT);
            return;
        }
        ObjectPaths.Target target;
        try {
            target = ObjectPaths.parse(path);
        } catch (IllegalArgumentException e) {
            reject(request, 400, e.getMessage());
            return;
        }
        if (!knownNamespace.test(target.namespace())) {
            reject(request, 404, "unknown namespace " + ObjectPaths.quote(target.namespace()));
            return;
        }
        String declaredLength = request.getHeader(HttpHeaders.CONTENT_LENGTH);
        if (declaredLength != null && exceedsLimit(declaredLength)) {
            reject(request, 413, tooLarge(declaredLength + " bytes declared"));
            return;
        }
        Buffer body = Buffer.buffer();
        request.handler(chunk -> {
            if (request.response().ended()) return;    // already rejected: discard the rest
            if (body.length() + (long) chunk.length() > maxBodyBytes) {
                reject(request, 413, tooLarge("more than " + maxBodyBytes + " bytes sent"));
                return;
            }
            body.appendBuffer(chunk);
        });
        request.endHandler(done -> {
            if (!request.response().ended()) {
                dispatch(request.response(), target, body.getBytes());
            }
        });
    }

    private boolean exceedsLimit(String declaredLength) {
        try {
            return Long.parseLong(declaredLength.trim()) > maxBodyBytes;
        } catch (NumberFormatException e) {
            return false;   // the HTTP codec itself rejects malformed lengths
        }
    }

    private String tooLarge(String what) {
        return "request body too large (" + what + "); the limit is " + maxBodyBytes + " bytes";
    }

    /** Hands the call to a virtual thread; the reply is written back on this request's context. */
    private void dispatch(HttpServerResponse response, ObjectPaths.Target target, byte[] args) {
        Context context = vertx.getOrCreateContext();
        CALLERS.execute(() -> {
            CompletableFuture<byte[]> reply;
            try {
                reply = transport.call(target.namespace(), target.id(), target.method(), args);
            } catch (RuntimeException e) {
                reply = CompletableFuture.failedFuture(e);
            }
            reply.whenComplete((bytes, failure) -> context.runOnContext(v -> {
                if (failure == null) {
                    response.setStatusCode(200)
                            .putHeader(HttpHeaders.CONTENT_TYPE, CODEC_CONTENT_TYPE)
                            .end(Buffer.buffer(bytes));
                } else {
                    Throwable cause = unwrap(failure);
                    response.setStatusCode(statusFor(cause))
                            .putHeader(HttpHeaders.CONTENT_TYPE, TEXT_CONTENT_TYPE)
                            .end(cause.getClass().getSimpleName() + ": " + cause.getMessage());
                }
            }));
        });
    }

    /** How a failure of the transport (not of the object: those are encoded in the reply) maps to a status. */
    static int statusFor(Throwable cause) {
        String type = cause.getClass().getSimpleName();
        if (type.equals("ObjectOverloadedException") || cause instanceof java.util.concurrent.RejectedExecutionException) {
            return 503;
        }
        if (cause instanceof IllegalStateException) {
            return 503;     // the runtime is closing or closed
        }
        if (cause instanceof IllegalArgumentException) {
            return 400;     // the runtime could not make sense of the method or the arguments
        }
        return 500;
    }

    private static Throwable unwrap(Throwable t) {
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    private static void reject(HttpServerRequest request, int status, String message) {
        HttpServerResponse response = request.response();
        boolean bodyUnread = !request.isEnded();
        response.setStatusCode(status).putHeader(HttpHeaders.CONTENT_TYPE, TEXT_CONTENT_TYPE);
        if (bodyUnread) {
            // the unread rest of the body would be parsed as the next request: close after replying
            response.putHeader(HttpHeaders.CONNECTION, "close");
        }
        response.end(message + '\n');
    }

    /** Options of an {@link HttpObjectServer}; {@link #start()} binds it. */
    public static final class Builder {
        private final ObjectTransport transport;
        private String host = "127.0.0.1";
        private int port = 0;
        private long maxBodyBytes = 1 << 20;
        private Duration closeGracePeriod = Duration.ofSeconds(30);
        private Predicate<String> knownNamespace = ns -> true;
        private Vertx vertx;

        private Builder(ObjectTransport transport) {
            this.transport = Objects.requireNonNull(transport, "transport");
        }

        /** Interface to bind; default {@code 127.0.0.1} (only local clients). */
        public Builder host(String host) {
            this.host = Objects.requireNonNull(host, "host");
            return this;
        }

        /** Port to bind, 0 for any free port (default); see {@link HttpObjectServer#actualPort()}. */
        public Builder port(int port) {
            if (port < 0 || port > 65535) {
                throw new IllegalArgumentException("port must be between 0 and 65535, got " + port);
            }
            this.port = port;
            return this;
        }

        /** Largest accepted request body (encoded arguments); larger ones get 413. Default 1 MiB. */
        public Builder maxBodyBytes(long maxBodyBytes) {
            if (maxBodyBytes < 1) {
                throw new IllegalArgumentException("maxBodyBytes must be at least 1, got " + maxBodyBytes);
            }
            this.maxBodyBytes = maxBodyBytes;
            return this;
        }

        /**
         * Which namespaces exist; calls to others get 404 without reaching the transport.
         * Default: every namespace is passed to the transport.
         */
        public Builder namespaces(Predicate<String> knownNamespace) {
            this.knownNamespace = Objects.requireNonNull(knownNamespace, "knownNamespace");
            return this;
        }

        /** How long {@link HttpObjectServer#close()} waits for calls in flight. Default 30 s. */
        public Builder closeGracePeriod(Duration closeGracePeriod) {
            if (closeGracePeriod.isNegative()) {
                throw new IllegalArgumentException("closeGracePeriod must not be negative, got " + closeGracePeriod);
            }
            this.closeGracePeriod = closeGracePeriod;
            return this;
        }

        /** Runs on this Vert.x instance (not closed by the server); default: a private one. */
        public Builder vertx(Vertx vertx) {
            this.vertx = Objects.requireNonNull(vertx, "vertx");
            return this;
        }

        /** Binds the server; throws {@link IllegalStateException} if the port cannot be bound. */
        public HttpObjectServer start() {
            return new HttpObjectServer(this);
        }
    }
}
