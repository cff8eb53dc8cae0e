package io.jrma.core.os;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodType;
import java.lang.reflect.Array;
import java.lang.reflect.Method;
import java.util.Locale;
import java.util.Optional;

/**
 * Binds a C library function whose arguments and result are all integers (C {@code int} or {@code long}) to a
 * {@link MethodHandle} through the JDK's own foreign-function linker, found by reflection so the code compiles
 * and runs on JDK 17:
 * <ul>
 *   <li>JDK 22 and later: {@code java.lang.foreign.Linker}, when native access is enabled for jrma's module
 *   ({@code --enable-native-access=ALL-UNNAMED}, among the flags {@code io.jrma.JvmFlags} gives for these JDKs);</li>
 *   <li>JDK 17: the incubating {@code jdk.incubator.foreign.CLinker}, only when the JVM was started with
 *   {@code --add-modules=jdk.incubator.foreign --enable-native-access=ALL-UNNAMED} (the JDK refuses the linker
 *   otherwise);</li>
 *   <li>anything else (JDK 18-21, whose preview APIs differ, or the linker refused): {@link #bind} returns null and
 *   the caller keeps JNA.</li>
 * </ul>
 *
 * <p>Why: a call through the JDK's linker costs about what it costs from C, where JNA's direct mapping adds about
 * 0.3 µs (measured here for an 8-byte {@code process_vm_readv}: JNA 0.72-0.87 µs, JDK 17's linker 0.48-0.57,
 * JDK 25's 0.49-0.58; from C 0.40-0.49). That is most of what separates a kernel copy of 8 bytes from Open
 * MPI's.
 *
 * <p>Pointers are passed as {@code long} addresses; on the 64-bit Linux ABIs jrma runs on (x86-64, AArch64) a
 * pointer and a {@code long} travel in the same register. errno is not captured: a caller that needs it redoes the
 * failed call through JNA. {@code -Djrma.ffm=false} keeps every call on JNA.
 *
 * <p>Stateless; any thread.
 */
public final class Downcall {
    private static final String WHICH;

    static {
        String which = "none";
        if (!"false".equals(System.getProperty("jrma.ffm"))
                && System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("linux")) {
            int feature = Runtime.version().feature();
            if (feature >= 22) {
                which = "java.lang.foreign";
            } else if (feature == 17 && ModuleLayer.boot().findModule("jdk.incubator.foreign").isPresent()) {
                which = "jdk.incubator.foreign";
            }
        }
        WHICH = which;
    }

    private Downcall() {
    }

    /** Whether {@link #linker()} actually binds here (native access granted): proven once on {@code getpid}. */
    public static boolean usable() {
        return Usable.YES;
    }

    private static final class Usable {
        static final boolean YES = bind("getpid", int.class) != null;
    }

    /**
     * Which linker {@link #bind} uses: {@code "java.lang.foreign"}, {@code "jdk.incubator.foreign"}, or
     * {@code "none"}. A linker named here may still refuse (native access not enabled): {@link #bind} then
     * returns null.
     */
    public static String linker() {
        return WHICH;
    }

    /**
     * A handle to the C library's function {@code name}, of type {@code (params...) result}, where every type is
     * {@code int.class} (C {@code int}) or {@code long.class} (C {@code long}, {@code size_t}, a pointer); or null
     * when no linker is usable here, the function is not found, or the linker refuses. Call it with
     * {@code invokeExact} from a {@code static final} field so the JIT links it straight in.
     */
    public static MethodHandle bind(String name, Class<?> result, Class<?>... params) {
        layout(result, null, null); // a wrong type is a programming error, not "no linker"
        for (Class<?> p : params) {
            layout(p, null, null);
        }
        try {
            switch (WHICH) {
                case "java.lang.foreign":
                    return bindFinal(name, result, params);
                case "jdk.incubator.foreign":
                    return bindIncubator(name, result, params);
                default:
                    return null;
            }
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            // among them IllegalCallerException inside an InvocationTargetException: native access not enabled
            return null;
        }
    }

    /**
     * What a call through a bound handle throws, for its {@code catch (Throwable)}: a downcall declares no checked
     * exception, so errors and runtime exceptions are returned as they are thrown (rethrow them) and anything else
     * is wrapped.
     */
    public static RuntimeException unchecked(Throwable e) {
        if (e instanceof Error) {
            throw (Error) e;
        }
        return e instanceof RuntimeException ? (RuntimeException) e : new IllegalStateException(e);
    }

    private static MethodHandle bindFinal(String name, Class<?> result, Class<?>[] params)
            throws ReflectiveOperationException {
        if (!(Boolean) Module.class.getMethod("isNativeAccessEnabled").invoke(Downcall.class.getModule())) {
            return null; // the JDK would print a warning (and a later JDK refuse): keep JNA, which warns once anyway
        }
        Class<?> linkerClass = Class.forName("java.lang.foreign.Linker");
        Class<?> layoutClass = Class.forName("java.lang.foreign.MemoryLayout");
        Class<?> valueLayout = Class.forName("java.lang.foreign.ValueLayout");
        Class<?> descriptorClass = Class.forName("java.lang.foreign.FunctionDescriptor");
        Class<?> segmentClass = Class.forName("java.lang.foreign.MemorySegment");
        Class<?> optionClass = Class.forName("java.lang.foreign.Linker$Option");
        Object linker = linkerClass.getMethod("nativeLinker").invoke(null);
        Object lookup = linkerClass.getMethod("defaultLookup").invoke(linker);
        Optional<?> symbol = (Optional<?>) Class.forName("java.lang.foreign.SymbolLookup")
                .getMethod("find", String.class).invoke(lookup, name);
        if (symbol.isEmpty()) {
            return null;
        }
        Object intLayout = valueLayout.getField("JAVA_INT").get(null);
        Object longLayout = valueLayout.getField("JAVA_LONG").get(null);
        Object descriptor = describe(descriptorClass, layoutClass, intLayout, longLayout, result, params);
        Method downcall = linkerClass.getMethod("downcallHandle", segmentClass, descriptorClass,
                optionClass.arrayType());
        MethodHandle h = (MethodHandle) downcall.invoke(linker, symbol.get(), descriptor,
                Array.newInstance(optionClass, 0));
        return h.type().equals(MethodType.methodType(result, params)) ? h : null;
    }

    private static MethodHandle bindIncubator(String name, Class<?> result, Class<?>[] params)
            throws ReflectiveOperationException {
        Class<?> linkerClass = Class.forName("jdk.incubator.foreign.CLinker");
        Class<?> layoutClass = Class.forName("jdk.incubator.foreign.MemoryLayout");
        Class<?> descriptorClass = Class.forName("jdk.incubator.foreign.FunctionDescriptor");
        Class<?> addressable = Class.forName("jdk.incubator.foreign.Addressable");
        Object linker = linkerClass.getMethod("getInstance").invoke(null); // refused without native access
        Object lookup = linkerClass.getMethod("systemLookup").invoke(null);
        Optional<?> symbol = (Optional<?>) Class.forName("jdk.incubator.foreign.SymbolLookup")
                .getMethod("lookup", String.class).invoke(lookup, name);
        if (symbol.isEmpty()) {
            return null;
        }
        Object intLayout = linkerClass.getField("C_INT").get(null);
        Object longLayout = linkerClass.getField("C_LONG").get(null);
        Object descriptor = describe(descriptorClass, layoutClass, intLayout, longLayout, result, params);
        Method downcall = linkerClass.getMethod("downcallHandle", addressable, MethodType.class, descriptorClass);
        return (MethodHandle) downcall.invoke(linker, symbol.get(), MethodType.methodType(result, params), descriptor);
    }

    private static Object describe(Class<?> descriptorClass, Class<?> layoutClass, Object intLayout,
                                   Object longLayout, Class<?> result, Class<?>[] params)
            throws ReflectiveOperationException {
        Object args = Array.newInstance(layoutClass, params.length);
        for (int i = 0; i < params.length; i++) {
            Array.set(args, i, layout(params[i], intLayout, longLayout));
        }
        return descriptorClass.getMethod("of", layoutClass, args.getClass())
                .invoke(null, layout(result, intLayout, longLayout), args);
    }

    private static Object layout(Class<?> type, Object intLayout, Object longLayout) {
        if (type == int.class) {
            return intLayout;
        }
        if (type == long.class) {
            return longLayout;
        }
        throw new IllegalArgumentException("Downcall binds int and long arguments and results only, not " + type);
    }
}
