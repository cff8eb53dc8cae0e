package io.jrma.launcher;

import io.jrma.Comm;
import io.jrma.core.runtime.RankThreads;
import java.io.ByteArrayOutputStream;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * {@code --tag-output}: replaces System.out and System.err with streams that prefix every line with the rank
 * of the thread that wrote it, as {@code [1,3]<stdout>:} (Open MPI's format; threads outside any rank get
 * {@code [1,jvmN]}). Lines are assembled per thread and written whole, so ranks sharing a JVM do not mix
 * within a line.
 *
 * <p>Thread-safe.
 */
final class TaggedOutput extends OutputStream {
    private final OutputStream target;
    private final String stream;
    private final int jvm;
    private final ThreadLocal<ByteArrayOutputStream> line = ThreadLocal.withInitial(ByteArrayOutputStream::new);

    private TaggedOutput(OutputStream target, String stream, int jvm) {
        this.target = target;
        this.stream = stream;
        this.jvm = jvm;
    }

    static void install(int jvm) {
        System.setOut(new PrintStream(new TaggedOutput(new FileOutputStream(FileDescriptor.out), "stdout", jvm), true));
        System.setErr(new PrintStream(new TaggedOutput(new FileOutputStream(FileDescriptor.err), "stderr", jvm), true));
    }

    @Override
    public void write(int b) {
        ByteArrayOutputStream l = line.get();
        l.write(b);
        if (b == '\n') {
            emit(l);
        }
    }

    @Override
    public void write(byte[] b, int off, int len) {
        ByteArrayOutputStream l = line.get();
        int start = off;
        for (int i = off; i < off + len; i++) {
            if (b[i] == '\n') {
                l.write(b, start, i + 1 - start);
                emit(l);
                start = i + 1;
            }
        }
        l.write(b, start, off + len - start);
    }

    @Override
    public void flush() {
        ByteArrayOutputStream l = line.get();
        if (l.size() > 0) {
            emit(l);
        }
    }

    private void emit(ByteArrayOutputStream l) {
        Comm w = RankThreads.world();
        String who = w != null ? String.valueOf(w.rank()) : "jvm" + jvm;
        byte[] prefix = ("[1," + who + "]<" + stream + ">:").getBytes(StandardCharsets.UTF_8);
        synchronized (target) {
            try {
                target.write(prefix);
                l.writeTo(target);
                target.flush();
            } catch (IOException ignored) {
                // output closed: nothing to do
            }
        }
        l.reset();
    }
}
