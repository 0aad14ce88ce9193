package io.anteroom.objects.ratis;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.security.cert.Certificate;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.Supplier;
import javax.naming.InvalidNameException;
import javax.naming.ldap.LdapName;
import javax.naming.ldap.Rdn;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;
import org.apache.ratis.proto.RaftProtos;
import org.apache.ratis.thirdparty.io.grpc.ForwardingServerCallListener;
import org.apache.ratis.thirdparty.io.grpc.Grpc;
import org.apache.ratis.thirdparty.io.grpc.Metadata;
import org.apache.ratis.thirdparty.io.grpc.ServerCall;
import org.apache.ratis.thirdparty.io.grpc.ServerCallHandler;
import org.apache.ratis.thirdparty.io.grpc.ServerInterceptor;
import org.apache.ratis.thirdparty.io.grpc.Status;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Binds a peer's id to its TLS certificate on the Raft port: a Raft message between peers (vote,
 * append, snapshot, read index, election start) names the peer that sends it; it is accepted only
 * if the certificate the connection was authenticated with names that peer ({@link #names}). Mutual
 * TLS alone admits any holder of a trusted certificate under any id; with this, a peer (or a stolen
 * certificate) cannot vote or append as another.
 *
 * <p>A refused call is closed with {@code PERMISSION_DENIED} before Ratis sees its message, and
 * logged once per certificate and claimed id. Calls of Ratis' client and admin services (a
 * membership change by {@code anteroom cluster}) name a client, not a peer: any trusted certificate
 * may make them, so the trust file also says who may administer the cluster. Without TLS (loopback,
 * plain text) there is no certificate and nothing is checked.
 */
final class PeerIdentity implements ServerInterceptor {
  private static final Logger LOG = LoggerFactory.getLogger(PeerIdentity.class);

  private final String self;
  private final Function<String, Optional<String>> hostOf;
  private final Supplier<Map<String, Integer>> peersPerHost;
  private final Set<String> reported = ConcurrentHashMap.newKeySet();

  /**
   * @param self this peer's id (for the log line)
   * @param hostOf the Raft host of a peer id in the current membership
   * @param peersPerHost how many members use each Raft host (a host shared by several peers, as on
   *     one machine, identifies none of them)
   */
  PeerIdentity(
      String self,
      Function<String, Optional<String>> hostOf,
      Supplier<Map<String, Integer>> peersPerHost) {
    this.self = self;
    this.hostOf = hostOf;
    this.peersPerHost = peersPerHost;
  }

  /**
   * Whether {@code certificate} names peer {@code id}: its subject's CN or a DNS subject
   * alternative name is the id; or one of its subject alternative names (IP or DNS) is the peer's
   * Raft host {@code host} and no other member uses that host.
   */
  static boolean names(
      X509Certificate certificate, String id, Optional<String> host, boolean hostIsUnique) {
    if (id.equals(commonName(certificate))) return true;
    for (List<?> san : alternativeNames(certificate)) {
      int type = (Integer) san.get(0);
      String value = String.valueOf(san.get(1));
      if (type == 2 && value.equals(id)) return true;
      if (host.isPresent()
          && hostIsUnique
          && (type == 2 || type == 7)
          && sameHost(value, host.get())) return true;
    }
    return false;
  }

  /** The subject's CN, or {@code null}. */
  static String commonName(X509Certificate certificate) {
    try {
      LdapName name = new LdapName(certificate.getSubjectX500Principal().getName());
      for (Rdn rdn : name.getRdns()) {
        if (rdn.getType().equalsIgnoreCase("CN")) return String.valueOf(rdn.getValue());
      }
    } catch (InvalidNameException e) {
      return null;
    }
    return null;
  }

  private static java.util.Collection<List<?>> alternativeNames(X509Certificate certificate) {
    try {
      var names = certificate.getSubjectAlternativeNames();
      return names == null ? List.of() : names;
    } catch (CertificateParsingException e) {
      return List.of();
    }
  }

  private static boolean sameHost(String a, String b) {
    if (a.equalsIgnoreCase(b)) return true;
    if (!literal(a) || !literal(b)) return false;
    try {
      return InetAddress.getByName(a).equals(InetAddress.getByName(b)); // literals: no lookup
    } catch (UnknownHostException e) {
      return false;
    }
  }

  private static boolean literal(String host) {
    return host.chars().allMatch(c -> Character.digit(c, 16) >= 0 || c == '.' || c == ':');
  }

  /** The peer a server-to-server Raft message says it comes from, or {@code null}. */
  static String claimedPeer(Object message) {
    RaftProtos.RaftRpcRequestProto request;
    if (message instanceof RaftProtos.AppendEntriesRequestProto m) request = m.getServerRequest();
    else if (message instanceof RaftProtos.RequestVoteRequestProto m)
      request = m.getServerRequest();
    else if (message instanceof RaftProtos.InstallSnapshotRequestProto m)
      request = m.getServerRequest();
    else if (message instanceof RaftProtos.ReadIndexRequestProto m) request = m.getServerRequest();
    else if (message instanceof RaftProtos.StartLeaderElectionRequestProto m)
      request = m.getServerRequest();
    else return null;
    return request.getRequestorId().toStringUtf8();
  }

  @Override
  public <Q, R> ServerCall.Listener<Q> interceptCall(
      ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
    SSLSession session = call.getAttributes().get(Grpc.TRANSPORT_ATTR_SSL_SESSION);
    if (session == null) return next.startCall(call, headers); // plain text: no identity
    X509Certificate certificate;
    try {
      Certificate[] chain = session.getPeerCertificates();
      certificate = (X509Certificate) chain[0];
    } catch (SSLPeerUnverifiedException | RuntimeException e) {
      call.close(Status.UNAUTHENTICATED.withDescription("no client certificate"), new Metadata());
      return new ServerCall.Listener<>() {};
    }
    Object remote = call.getAttributes().get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR);
    ServerCall.Listener<Q> delegate = next.startCall(call, headers);
    return new ForwardingServerCallListener.SimpleForwardingServerCallListener<>(delegate) {
      private String verified; // the peer id this call's certificate was found to name
      private boolean refused;

      @Override
      public void onMessage(Q message) {
        if (refused) return;
        String claimed = claimedPeer(message);
        if (claimed != null && !claimed.equals(verified)) {
          Optional<String> host = hostOf.apply(claimed);
          boolean unique = host.map(h -> peersPerHost.get().getOrDefault(h, 0) <= 1).orElse(false);
          if (!names(certificate, claimed, host, unique)) {
            refused = true;
            refuse(certificate, claimed, remote);
            call.close(
                Status.PERMISSION_DENIED.withDescription(
                    "the certificate " + subject(certificate) + " does not name peer " + claimed),
                new Metadata());
            return;
          }
          verified = claimed;
        }
        super.onMessage(message);
      }

      @Override
      public void onHalfClose() {
        if (!refused) super.onHalfClose();
      }

      @Override
      public void onReady() {
        if (!refused) super.onReady();
      }
    };
  }

  private void refuse(X509Certificate certificate, String claimed, Object remote) {
    String key = subject(certificate) + "|" + claimed;
    String line =
        "peer {}: refused Raft messages from {} claiming to be peer {}: its certificate ({})"
            + " does not name that peer (a peer's certificate must name its id as CN or DNS"
            + " name, or its raft host when no other peer shares it)";
    if (reported.size() < 1024 && reported.add(key))
      LOG.warn(line, self, remote, claimed, subject(certificate));
    else LOG.debug(line, self, remote, claimed, subject(certificate));
  }

  private static String subject(X509Certificate certificate) {
    return certificate.getSubjectX500Principal().getName();
  }
}
