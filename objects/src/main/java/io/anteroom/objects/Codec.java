package io.anteroom.objects;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.JsonSerializer;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.module.SimpleModule;
import java.io.IOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The one encoding of everything that crosses an object's boundary: call arguments, replies, and
 * stored values. JSON through Jackson (records, primitives, strings, lists, maps, byte arrays;
 * {@link ObjectId}, {@link Instant} and {@link Duration} as strings).
 *
 * <p>Wire format of a call: the arguments as a JSON array, decoded by the method's declared
 * parameter types. A reply is one tag byte then JSON: {@code 'R'} + the result (decoded by the
 * declared return type, unwrapping {@code CompletableFuture<R>}), or {@code 'E'} + {@code {"type":
 * "<class name>", "message": "..."}} for an exception the object threw. The caller re-creates the
 * exception with the same type and message when it can (a {@code RuntimeException} or a declared
 * checked exception with a {@code (String)} constructor), and otherwise throws {@link
 * ObjectException} carrying both.
 *
 * <pre>{@code
 * Codec codec = Codec.standard();
 * byte[] args = codec.encodeArgs(method, new Object[] {5L});
 * Object result = codec.decodeReply(method, codec.encodeResult(42L));   // 42L
 * }</pre>
 */
public final class Codec {
  private static final Codec STANDARD = new Codec();
  private static final byte RESULT = 'R';
  private static final byte ERROR = 'E';

  private final ObjectMapper mapper;
  private final Map<Method, JavaType[]> parameterTypes = new ConcurrentHashMap<>();
  private final Map<Method, JavaType> resultTypes = new ConcurrentHashMap<>();
  private final Map<Class<?>, JavaType> valueTypes = new ConcurrentHashMap<>();

  private Codec() {
    SimpleModule module = new SimpleModule("anteroom-objects");
    module.addSerializer(ObjectId.class, toStringSerializer(ObjectId.class));
    module.addDeserializer(ObjectId.class, fromString(ObjectId.class, ObjectId::parse));
    module.addSerializer(Instant.class, toStringSerializer(Instant.class));
    module.addDeserializer(Instant.class, fromString(Instant.class, Instant::parse));
    module.addSerializer(Duration.class, toStringSerializer(Duration.class));
    module.addDeserializer(Duration.class, fromString(Duration.class, Duration::parse));
    // a shared buffer pool: the default is per thread, and objects run on short-lived virtual
    // threads
    com.fasterxml.jackson.core.JsonFactory factory =
        com.fasterxml.jackson.core.JsonFactory.builder()
            .recyclerPool(
                com.fasterxml.jackson.core.util.JsonRecyclerPools.sharedConcurrentDequePool())
            .build();
    this.mapper =
        JsonMapper.builder(factory)
            .addModule(module)
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .build();
  }

  /** The runtime's codec. */
  public static Codec standard() {
    return STANDARD;
  }

  /** The Jackson mapper behind this codec (for transports that want to embed JSON). */
  public ObjectMapper mapper() {
    return mapper;
  }

  // ---- stored values ----

  /**
   * Encodes a value to store.
   *
   * @throws IllegalArgumentException if the value cannot be encoded
   */
  public byte[] encodeValue(Object value) {
    if (value instanceof Long || value instanceof Integer || value instanceof Boolean) {
      return value
          .toString()
          .getBytes(StandardCharsets.US_ASCII); // what Jackson writes, without Jackson
    }
    try {
      return mapper.writeValueAsBytes(value);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException(
          "value of type "
              + value.getClass().getName()
              + " cannot be stored: the codec cannot serialize it ("
              + e.getOriginalMessage()
              + "); use records, primitives, strings, lists, maps or byte arrays",
          e);
    }
  }

  /** Decodes a stored value as {@code type} ({@code Object.class}: natural JSON types). */
  @SuppressWarnings("unchecked")
  public <T> T decodeValue(byte[] bytes, Class<T> type) {
    if (type == Long.class) {
      Long fast = parseLong(bytes);
      if (fast != null) return (T) fast;
    }
    JavaType t = valueTypes.computeIfAbsent(type, c -> mapper.getTypeFactory().constructType(c));
    return decode(bytes, 0, t, "stored value as " + type.getName());
  }

  // ---- calls ----

  /** The value of a JSON integer that fits a long, or null (then Jackson decides). */
  private static Long parseLong(byte[] b) {
    int n = b.length;
    if (n == 0 || n > 18) return null;
    int i = b[0] == '-' ? 1 : 0;
    if (i == n) return null;
    long v = 0;
    for (; i < n; i++) {
      int d = b[i] - '0';
      if (d < 0 || d > 9) return null;
      v = v * 10 + d;
    }
    return b[0] == '-' ? -v : v;
  }

  /**
   * Encodes the arguments of a call to {@code method}.
   *
   * @throws IllegalArgumentException naming the argument that cannot be serialized
   */
  public byte[] encodeArgs(Method method, Object[] args) {
    Object[] a = args == null ? new Object[0] : args;
    try {
      return mapper.writeValueAsBytes(a);
    } catch (JsonProcessingException e) {
      for (int i = 0; i < a.length; i++) {
        try {
          mapper.writeValueAsBytes(a[i]);
        } catch (JsonProcessingException perArg) {
          throw new IllegalArgumentException(
              "argument "
                  + i
                  + " of "
                  + describe(method)
                  + " (a "
                  + a[i].getClass().getName()
                  + ") is not serializable by the object codec: "
                  + perArg.getOriginalMessage()
                  + "; use records, primitives, strings, lists, maps or byte arrays",
              perArg);
        }
      }
      throw new IllegalArgumentException(
          "arguments of " + describe(method) + " are not serializable: " + e.getOriginalMessage(),
          e);
    }
  }

  /** Decodes the arguments of a call to {@code method} by its declared parameter types. */
  public Object[] decodeArgs(Method method, byte[] bytes) {
    if (bytes == null)
      throw new IllegalArgumentException(
          "arguments of " + describe(method) + " are missing (null)");
    JavaType[] types = parameterTypes(method);
    Object[] out = new Object[types.length];
    try (JsonParser p = mapper.createParser(bytes)) {
      if (p.nextToken() != JsonToken.START_ARRAY) {
        throw new IllegalArgumentException(
            "arguments of " + describe(method) + " must be a JSON array");
      }
      for (int i = 0; i < types.length; i++) {
        if (p.nextToken() == JsonToken.END_ARRAY) {
          throw new IllegalArgumentException(
              describe(method) + " takes " + types.length + " arguments, got " + i);
        }
        out[i] = mapper.readValue(p, types[i]);
      }
      if (p.nextToken() != JsonToken.END_ARRAY) {
        throw new IllegalArgumentException(
            describe(method) + " takes " + types.length + " arguments, got more");
      }
      return out;
    } catch (IOException e) {
      throw new IllegalArgumentException(
          "cannot decode the arguments of " + describe(method) + ": " + e.getMessage(), e);
    }
  }

  /**
   * Encodes a successful reply.
   *
   * @throws IllegalArgumentException if the result cannot be serialized
   */
  public byte[] encodeResult(Object result) {
    try {
      return tagged(RESULT, mapper.writeValueAsBytes(result));
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException(
          "result of type "
              + result.getClass().getName()
              + " is not serializable by the object codec: "
              + e.getOriginalMessage(),
          e);
    }
  }

  private static byte[] tagged(byte tag, byte[] json) {
    byte[] out = new byte[json.length + 1];
    out[0] = tag;
    System.arraycopy(json, 0, out, 1, json.length);
    return out;
  }

  /** Encodes a reply carrying the exception an object threw (its type name and message). */
  public byte[] encodeError(Throwable error) {
    Throwable t = unwrapRemote(error);
    String type = t instanceof ObjectException oe ? oe.type() : t.getClass().getName();
    String message = t instanceof ObjectException oe ? oe.remoteMessage() : t.getMessage();
    try {
      Map<String, String> body = new java.util.LinkedHashMap<>();
      body.put("type", type);
      body.put("message", message);
      return tagged(ERROR, mapper.writeValueAsBytes(body));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot encode an error reply", e);
    }
  }

  /**
   * Decodes a reply to a call of {@code method}: returns the result, or throws the object's
   * exception re-created (see the class comment).
   *
   * @throws ObjectTransportException if the reply is malformed
   */
  public Object decodeReply(Method method, byte[] reply) {
    if (reply == null || reply.length == 0) {
      throw new ObjectTransportException("empty reply to " + describe(method));
    }
    if (reply[0] == RESULT) {
      return decode(reply, 1, resultType(method), "reply to " + describe(method));
    }
    if (reply[0] == ERROR) {
      ErrorReply e =
          decode(
              reply,
              1,
              mapper.constructType(ErrorReply.class),
              "error reply to " + describe(method));
      throw sneaky(recreate(method, e.type(), e.message()));
    }
    throw new ObjectTransportException(
        "malformed reply to " + describe(method) + ": unknown tag byte " + reply[0]);
  }

  record ErrorReply(String type, String message) {}

  /**
   * The exception to throw to a caller of {@code method} for an object's exception of {@code type}
   * with {@code message}.
   */
  public Throwable recreate(Method method, String type, String message) {
    try {
      Class<?> c = Class.forName(type, false, method.getDeclaringClass().getClassLoader());
      boolean throwable =
          RuntimeException.class.isAssignableFrom(c)
              || Error.class.isAssignableFrom(c)
              || declares(method, c);
      if (throwable) {
        Constructor<?> ctor = c.getConstructor(String.class);
        return (Throwable) ctor.newInstance(message);
      }
    } catch (ReflectiveOperationException | LinkageError | ClassCastException notRecreatable) {
      // fall through: the caller still gets the type name and message
    }
    return new ObjectException(type, message);
  }

  private static boolean declares(Method method, Class<?> c) {
    for (Class<?> declared : method.getExceptionTypes()) {
      if (declared.isAssignableFrom(c)) return true;
    }
    return false;
  }

  /**
   * Whether values of this class are immutable and trivially encodable, so may skip the codec
   * in-process.
   */
  static boolean isImmutableScalar(Object v) {
    return v == null
        || v instanceof String
        || v instanceof Long
        || v instanceof Integer
        || v instanceof Boolean
        || v instanceof Double
        || v instanceof Float
        || v instanceof Short
        || v instanceof Byte
        || v instanceof Character
        || v instanceof Enum<?>
        || v instanceof ObjectId
        || v instanceof Instant
        || v instanceof Duration
        || v instanceof BigInteger
        || v instanceof BigDecimal;
  }

  /** Round-trips a value through the codec (a copy, as if it had crossed a process boundary). */
  Object copy(Object value, JavaType type, String what) {
    if (isImmutableScalar(value)) return value;
    byte[] bytes;
    try {
      bytes = mapper.writeValueAsBytes(value);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException(
          what
              + " (a "
              + value.getClass().getName()
              + ") is not serializable by the object codec: "
              + e.getOriginalMessage()
              + "; use records, primitives, strings, lists, maps or byte arrays",
          e);
    }
    return decode(bytes, 0, type, what);
  }

  /**
   * Builds now, once per JVM, what the first call of each of {@code methods} would otherwise build
   * on its way: the decoders of its parameter types and the encoder of its result type. Measured:
   * the first decode of a room counter's arguments in a JVM that never decoded them took 0.56-0.84
   * s (class loading and Jackson's introspection of the records), the next ones under 0.5 ms; a
   * coordinator peer that becomes a shard's leader for the first time paid that on the first calls
   * of its failover. Best effort: a type the mapper cannot handle is left to the call, which
   * reports it.
   *
   * @return how many types were prepared
   */
  public int prime(Collection<Method> methods) {
    int prepared = 0;
    for (Method m : methods) {
      for (JavaType t : parameterTypes(m)) {
        try {
          mapper.readerFor(t); // fetches and caches the root deserializer
          prepared++;
        } catch (RuntimeException e) {
          // the call will say what is wrong with it
        }
      }
      JavaType result = resultType(m);
      if (!result.isPrimitive() && result.getRawClass() != Void.class) {
        try {
          mapper.writerFor(result); // fetches and caches the root serializer
          prepared++;
        } catch (RuntimeException e) {
          // the call will say what is wrong with it
        }
      }
    }
    return prepared;
  }

  JavaType[] parameterTypes(Method method) {
    return parameterTypes.computeIfAbsent(
        method,
        m -> {
          Type[] generic = m.getGenericParameterTypes();
          JavaType[] out = new JavaType[generic.length];
          for (int i = 0; i < generic.length; i++)
            out[i] = mapper.getTypeFactory().constructType(generic[i]);
          return out;
        });
  }

  JavaType resultType(Method method) {
    return resultTypes.computeIfAbsent(
        method,
        m -> {
          Type t = m.getGenericReturnType();
          if (m.getReturnType() == CompletableFuture.class) {
            t = t instanceof ParameterizedType p ? p.getActualTypeArguments()[0] : Object.class;
          }
          return mapper.getTypeFactory().constructType(t);
        });
  }

  static boolean isAsync(Method method) {
    return method.getReturnType() == CompletableFuture.class;
  }

  static String describe(Method method) {
    return method.getDeclaringClass().getSimpleName() + "." + method.getName();
  }

  private <T> T decode(byte[] bytes, int offset, JavaType type, String what) {
    if (type.hasRawClass(void.class) || type.hasRawClass(Void.class)) return null;
    try {
      return mapper.readValue(bytes, offset, bytes.length - offset, type);
    } catch (IOException e) {
      throw new IllegalArgumentException(
          "cannot decode "
              + what
              + ": "
              + e.getMessage()
              + " (bytes: "
              + new String(
                  bytes, offset, Math.min(200, bytes.length - offset), StandardCharsets.UTF_8)
              + ")",
          e);
    }
  }

  private static Throwable unwrapRemote(Throwable t) {
    Throwable cur = t;
    while ((cur instanceof java.util.concurrent.CompletionException
            || cur instanceof java.util.concurrent.ExecutionException
            || cur instanceof java.lang.reflect.InvocationTargetException
            || cur instanceof java.lang.reflect.UndeclaredThrowableException)
        && cur.getCause() != null) {
      cur = cur.getCause();
    }
    return cur;
  }

  static Throwable unwrap(Throwable t) {
    return unwrapRemote(t);
  }

  @SuppressWarnings("unchecked")
  static <E extends Throwable> RuntimeException sneaky(Throwable t) throws E {
    throw (E) t;
  }

  private static <T> JsonSerializer<T> toStringSerializer(Class<T> type) {
    return new JsonSerializer<>() {
      @Override
      public void serialize(T value, JsonGenerator gen, SerializerProvider serializers)
          throws IOException {
        gen.writeString(value.toString());
      }
    };
  }

  private static <T> JsonDeserializer<T> fromString(
      Class<T> type, java.util.function.Function<String, T> parse) {
    return new JsonDeserializer<>() {
      @Override
      public T deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
        String text = p.getValueAsString();
        try {
          return parse.apply(text);
        } catch (RuntimeException e) {
          return ctxt.reportInputMismatch(
              type, "cannot parse %s from \"%s\": %s", type.getSimpleName(), text, e.getMessage());
        }
      }
    };
  }
}
