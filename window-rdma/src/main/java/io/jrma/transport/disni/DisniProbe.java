package io.jrma.transport.disni;

import com.ibm.disni.verbs.RdmaEventChannel;
import java.io.IOException;

/**
 * Whether DiSNI can work in this JVM, and if not, why, in words a user can act on: its jar on the class path, its
 * native {@code libdisni} loadable, an RDMA device behind librdmacm. Nothing here throws: a missing class, an
 * {@link UnsatisfiedLinkError} or a failed event channel become a reason. The answer of {@link #unavailableReason} is
 * computed once per JVM. Threads: any.
 */
final class DisniProbe {
    /** The class whose presence says DiSNI's jar is on the class path. */
    static final String DISNI_CLASS = "com.ibm.disni.verbs.RdmaEventChannel";
    /** The native library's name for {@link System#loadLibrary} ({@code libdisni.so}). */
    static final String LIBRARY = "disni";
    /** The librdmacm call that fails where the kernel has no RDMA device. */
    static final String EVENT_CHANNEL_CALL = "rdma_create_event_channel";

    /** The three checks, in order; a test replaces them to see each reason. */
    interface Steps {
        /** Whether DiSNI's classes are on the class path. */
        boolean classPresent();

        /** Loads libdisni; throws the linkage error when it cannot. */
        void loadLibrary();

        /** Creates and destroys an RDMA-CM event channel; throws when librdmacm finds no device. */
        void openEventChannel() throws IOException;
    }

    private static final class Holder {
        static final String REASON = reason(new Real());
    }

    private DisniProbe() {
    }

    /** Null when DiSNI can work here, else why not. */
    static String unavailableReason() {
        return Holder.REASON;
    }

    /** The first check of {@code steps} that fails, as a reason; null when all pass. */
    static String reason(Steps steps) {
        try {
            if (!steps.classPresent()) {
                return "DiSNI's jar (com.ibm.disni:disni) is not on the class path";
            }
        } catch (RuntimeException | LinkageError e) {
            return "DiSNI's jar is not usable: " + e;
        }
        try {
            steps.loadLibrary();
        } catch (LinkageError | RuntimeException e) {
            String m = String.valueOf(e.getMessage());
            String path = m.contains("java.library.path") ? "" : "; java.library.path="
                    + System.getProperty("java.library.path");
            return "libdisni is not loadable (" + m + path + "): no package ships it; build it from DiSNI's "
                    + "sources against libibverbs and librdmacm (docs/disni.md) and put libdisni.so on "
                    + "java.library.path (-Djava.library.path= or LD_LIBRARY_PATH)";
        }
        try {
            steps.openEventChannel();
        } catch (IOException | RuntimeException | LinkageError e) {
            // libdisni's text is "j2c::createEventChannel: rdma_create_event_channel failed: <strerror>"
            String m = String.valueOf(e.getMessage());
            int call = m.indexOf(EVENT_CHANNEL_CALL);
            return "no RDMA device: " + (call >= 0 ? m.substring(call) : EVENT_CHANNEL_CALL + " failed: " + m);
        }
        return null;
    }

    /** The checks against the real DiSNI. */
    private static final class Real implements Steps {
        @Override
        public boolean classPresent() {
            try {
                Class.forName(DISNI_CLASS, false, DisniProbe.class.getClassLoader());
                return true;
            } catch (ClassNotFoundException e) {
                return false;
            }
        }

        @Override
        public void loadLibrary() {
            System.loadLibrary(LIBRARY);
        }

        @Override
        public void openEventChannel() throws IOException {
            RdmaEventChannel channel = RdmaEventChannel.createEventChannel();
            if (channel == null) {
                throw new IOException("no event channel");
            }
            channel.destroyEventChannel();
        }
    }
}
