package mpi;

import io.jrma.ErrorClass;
import io.jrma.RmaException;
import io.jrma.core.dt.TypeLayout;
import java.io.IOException;
import java.nio.Buffer;
import java.nio.ByteBuffer;
import java.nio.LongBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;
import java.util.EnumSet;
import java.util.Set;

/**
 * A file opened by the ranks of a communicator (MPI-IO, MPI_File). jrma's ranks run on one host, so every rank
 * opens the same file of the local file system and reads and writes it at explicit offsets.
 *
 * <p>Supported: opening with every access mode (RDONLY, WRONLY, RDWR, CREATE, EXCL, DELETE_ON_CLOSE, APPEND,
 * SEQUENTIAL), close, delete, sizes, info, views (displacement, etype, a file type with or without holes,
 * tiled from the displacement, and the "native" representation), reads and writes at explicit offsets, through
 * the individual file pointer and through the shared file pointer (blocking, collective, nonblocking, split
 * collective, ordered), sync and error handlers (the default for files is {@link MPI#ERRORS_RETURN}, as MPI
 * says). The shared file pointer is a counter in a window at rank 0, moved by atomic fetch-and-add. A
 * representation other than "native" or "internal" is ERR_UNSUPPORTED_DATAREP.
 *
 * <p>Collective calls must be made by every rank of the communicator, as in MPI; nonblocking calls complete in
 * the call.
 */
public final class File implements Site {
    private final Comm comm;
    private final String name;
    private final int amode;
    private FileChannel ch;
    private volatile Errhandler errh = MPI.ERRORS_RETURN;
    private Info info;
    private FileView view = new FileView(0, MPI.BYTE, MPI.BYTE, "native");
    /** The individual file pointer, in etypes of the view. */
    private long pointer;
    /**
     * The shared file pointer (etypes of the view) lives in a one-long window at rank 0 of the communicator,
     * moved by atomic fetch-and-add, so ranks in any JVM share it.
     */
    private Win sharedWin;
    private boolean atomic;
    /**
     * The file type's data blocks (byte offset in a tile, length) in type-map order, or null if the file type
     * has no holes; the tiles follow each other every {@code tileExtent} bytes from the displacement, each
     * holding {@code tileData} bytes of data.
     */
    private long[] blockOff;
    private long[] blockLen;
    private long tileData;
    private long tileExtent;
    private Status beginStatus;

    /** Opens {@code filename} collectively over {@code comm} (MPI_FILE_OPEN). */
    public File(Comm comm, String filename, int amode) throws MPIException {
        this(comm, filename, amode, MPI.INFO_NULL);
    }

    /** Opens {@code filename} collectively over {@code comm} with hints (MPI_FILE_OPEN). */
    public File(Comm comm, String filename, int amode, Info info) throws MPIException {
        MPI.check();
        this.comm = comm;
        this.name = filename;
        this.amode = amode;
        // errors of MPI_FILE_OPEN go to the handler of MPI_FILE_NULL, ERRORS_RETURN
        exec(() -> {
            if (comm == null || comm.isNull()) {
                throw new RmaException(ErrorClass.ERR_COMM, "open " + filename + ": the communicator is null");
            }
            checkAmode(amode);
        });
        Path p = Paths.get(filename);
        int[] rc = {0};
        String[] why = {""};
        if (comm.getRank() == 0) {
            try {
                boolean exists = Files.exists(p);
                if (exists && has(MPI.MODE_CREATE) && has(MPI.MODE_EXCL)) {
                    throw new RmaException(ErrorClass.ERR_FILE_EXISTS, "open " + filename + ": the file exists and"
                            + " MODE_EXCL was given");
                }
                if (!exists) {
                    if (!has(MPI.MODE_CREATE)) {
                        throw new RmaException(ErrorClass.ERR_NO_SUCH_FILE, "open " + filename + ": no such file (give"
                                + " MODE_CREATE to create it)");
                    }
                    Files.createFile(p);
                }
            } catch (RmaException e) {
                rc[0] = e.errorCode();
                why[0] = e.getMessage();
            } catch (IOException | RuntimeException e) {
                rc[0] = ioClass(e).code();
                why[0] = "open " + filename + ": " + e;
            }
        }
        comm.bcast(rc, 1, MPI.INT, 0);
        int code = rc[0];
        if (code != 0) {
            exec(() -> {
                throw new RmaException(ErrorClass.of(code), why[0].isEmpty() ? "open " + filename + ": failed at rank 0"
                        : why[0]);
            });
        }
        exec(() -> {
            Set<StandardOpenOption> o = EnumSet.noneOf(StandardOpenOption.class);
            if (!has(MPI.MODE_WRONLY)) {
                o.add(StandardOpenOption.READ);
            }
            if (!has(MPI.MODE_RDONLY)) {
                o.add(StandardOpenOption.WRITE);
            }
            try {
                ch = FileChannel.open(p, o);
            } catch (IOException e) {
                throw new RmaException(ioClass(e), "open " + filename + ": " + e);
            }
        });
        this.info = Info.ji(info) == null ? new Info() : info.dup();
        long start = has(MPI.MODE_APPEND) ? size() : 0;
        pointer = start;
        LongBuffer mem = MPI.newLongBuffer(1).put(0, start);
        sharedWin = new Win(mem, 1, 1, MPI.INFO_NULL, comm);
        sharedWin.setErrhandler(MPI.ERRORS_RETURN);
    }

    private boolean has(int mode) {
        return (amode & mode) != 0;
    }

    private static void checkAmode(int amode) {
        int access = (amode & MPI.MODE_RDONLY) != 0 ? 1 : 0;
        access += (amode & MPI.MODE_WRONLY) != 0 ? 1 : 0;
        access += (amode & MPI.MODE_RDWR) != 0 ? 1 : 0;
        if (access != 1) {
            throw new RmaException(ErrorClass.ERR_AMODE, "amode must have exactly one of MODE_RDONLY, MODE_WRONLY,"
                    + " MODE_RDWR");
        }
        if ((amode & MPI.MODE_RDONLY) != 0 && (amode & (MPI.MODE_CREATE | MPI.MODE_EXCL)) != 0) {
            throw new RmaException(ErrorClass.ERR_AMODE, "MODE_RDONLY cannot go with MODE_CREATE or MODE_EXCL");
        }
        if ((amode & MPI.MODE_RDWR) != 0 && (amode & MPI.MODE_SEQUENTIAL) != 0) {
            throw new RmaException(ErrorClass.ERR_AMODE, "MODE_RDWR cannot go with MODE_SEQUENTIAL");
        }
    }

    private static ErrorClass ioClass(Throwable e) {
        if (e instanceof NoSuchFileException) {
            return ErrorClass.ERR_NO_SUCH_FILE;
        }
        if (e instanceof AccessDeniedException) {
            return ErrorClass.ERR_ACCESS;
        }
        if (e instanceof FileAlreadyExistsException) {
            return ErrorClass.ERR_FILE_EXISTS;
        }
        return ErrorClass.ERR_IO;
    }

    // ------------------------------------------------------------------------------------------- internals

    @Override
    public Errhandler errh() {
        return errh;
    }

    @Override
    public String siteName() {
        return "file " + name;
    }

    private <T> T run(Work<T> w) throws MPIException {
        MPI.check();
        try {
            return w.run();
        } catch (RuntimeException e) {
            throw Err.handle(errh, siteName(), e);
        }
    }

    private void exec(Comm.Act a) throws MPIException {
        run(() -> {
            a.run();
            return null;
        });
    }

    /** A body that may fail with an IOException, which becomes ERR_IO (or a more precise class). */
    @FunctionalInterface
    private interface Io<T> {
        T run() throws IOException, MPIException;
    }

    private <T> T io(Io<T> body) throws MPIException {
        return run(() -> {
            if (ch == null) {
                throw new RmaException(ErrorClass.ERR_FILE, "the file " + name + " is closed");
            }
            try {
                return body.run();
            } catch (IOException e) {
                throw new RmaException(ioClass(e), name + ": " + e);
            }
        });
    }

    private long size() throws MPIException {
        return io(() -> ch.size());
    }

    private long etypeSize() {
        return Math.max(1, Datatype.jt(view.getEType()).size());
    }

    /** The position in the view's data stream, in bytes, of {@code offset} etypes. */
    private long dataPos(long offset) {
        if (offset < 0) {
            throw new RmaException(ErrorClass.ERR_ARG, "file offset " + offset + " is negative");
        }
        return offset * etypeSize();
    }

    /** The absolute byte position in the file of {@code offset} etypes of the view. */
    private long byteOffset(long offset) {
        long pos = dataPos(offset);
        long[] at = {-1};
        try {
            segments(pos, 1, (file, len, done) -> {
                at[0] = file;
                return false;
            });
        } catch (IOException e) {
            throw new IllegalStateException(e); // the segment body does no I/O
        }
        return at[0];
    }

    /** A piece of the file holding view data: {@code len} bytes at {@code file}, after {@code done} bytes. */
    @FunctionalInterface
    private interface Segment {
        /** Returns whether to go on with the next piece. */
        boolean at(long file, long len, long done) throws IOException;
    }

    /** The pieces of the file that hold view data bytes {@code pos .. pos+len-1}, in order. */
    private void segments(long pos, long len, Segment seg) throws IOException {
        long disp = view.getDisp();
        if (blockOff == null) {
            seg.at(disp + pos, len, 0);
            return;
        }
        long tile = pos / tileData;
        long r = pos % tileData;
        int b = 0;
        while (r >= blockLen[b]) {
            r -= blockLen[b];
            b++;
        }
        long done = 0;
        while (done < len) {
            long n = Math.min(blockLen[b] - r, len - done);
            if (!seg.at(disp + tile * tileExtent + blockOff[b] + r, n, done)) {
                return;
            }
            done += n;
            r = 0;
            if (++b == blockOff.length) {
                b = 0;
                tile++;
            }
        }
    }

    private static Status status(long bytes) {
        return new Status(MPI.ANY_SOURCE, MPI.ANY_TAG, MPI.SUCCESS, false, bytes, 0);
    }

    /**
     * Reads {@code count} elements of {@code type} from view data position {@code pos} (bytes) into
     * {@code buf}; short at the end of file.
     */
    private Status readBytes(long pos, Object buf, int count, Datatype type) throws MPIException {
        return io(() -> {
            if (has(MPI.MODE_WRONLY)) {
                throw new RmaException(ErrorClass.ERR_ACCESS, "read: " + name + " was opened MODE_WRONLY");
            }
            if (count < 0) {
                throw new RmaException(ErrorClass.ERR_COUNT, "read: negative count " + count);
            }
            Bufs.Msg b = Comm.b(buf, type);
            byte[] data = new byte[Math.toIntExact((long) count * Datatype.jt(type).size())];
            long[] got = {0};
            segments(pos, data.length, (file, len, done) -> {
                ByteBuffer bb = ByteBuffer.wrap(data, (int) done, (int) len);
                long at = file;
                while (bb.hasRemaining()) {
                    int n = ch.read(bb, at);
                    if (n < 0) {
                        break;
                    }
                    at += n;
                }
                got[0] = done + (at - file);
                return !bb.hasRemaining(); // the end of the file ends the read
            });
            UserOps.unpack(data, 0, got[0], b, count, type);
            return status(got[0]);
        });
    }

    /** Writes {@code count} elements of {@code type} from {@code buf} at view data position {@code pos} (bytes). */
    private Status writeBytes(long pos, Object buf, int count, Datatype type) throws MPIException {
        return io(() -> {
            if (has(MPI.MODE_RDONLY)) {
                throw new RmaException(ErrorClass.ERR_READ_ONLY, "write: " + name + " was opened MODE_RDONLY");
            }
            if (count < 0) {
                throw new RmaException(ErrorClass.ERR_COUNT, "write: negative count " + count);
            }
            byte[] data = UserOps.pack(Comm.b(buf, type), count, type);
            segments(pos, data.length, (file, len, done) -> {
                ByteBuffer bb = ByteBuffer.wrap(data, (int) done, (int) len);
                long at = file;
                while (bb.hasRemaining()) {
                    at += ch.write(bb, at);
                }
                return true;
            });
            return status(data.length);
        });
    }

    private Status readAtPointer(Object buf, int count, Datatype type) throws MPIException {
        Status s = readBytes(run(() -> dataPos(pointer)), buf, count, type);
        pointer += s.bytes() / etypeSize();
        return s;
    }

    private Status writeAtPointer(Object buf, int count, Datatype type) throws MPIException {
        Status s = writeBytes(run(() -> dataPos(pointer)), buf, count, type);
        pointer += s.bytes() / etypeSize();
        return s;
    }

    private static Object direct(Buffer buf) {
        MPI.assertDirectBuffer(buf);
        return buf;
    }


    // ------------------------------------------------------------------------------------ file management

    /** Closes the file (MPI_FILE_CLOSE); collective. MODE_DELETE_ON_CLOSE deletes it once every rank closed it. */
    public void close() throws MPIException {
        io(() -> {
            ch.close();
            return null;
        });
        ch = null;
        Win w = sharedWin;
        sharedWin = null;
        if (w != null) {
            w.free(); // collective, as close is
        }
        if (has(MPI.MODE_DELETE_ON_CLOSE)) {
            comm.barrier();
            if (comm.getRank() == 0) {
                exec(() -> {
                    try {
                        Files.deleteIfExists(Paths.get(name));
                    } catch (IOException e) {
                        throw new RmaException(ioClass(e), "delete on close " + name + ": " + e);
                    }
                });
            }
        }
    }

    /** Deletes a file (MPI_FILE_DELETE); ERR_NO_SUCH_FILE if there is none. */
    public static void delete(String filename) throws MPIException {
        delete(filename, MPI.INFO_NULL);
    }

    /** Deletes a file (MPI_FILE_DELETE). */
    public static void delete(String filename, Info info) throws MPIException {
        MPI.check();
        try {
            Files.delete(Paths.get(filename));
        } catch (IOException e) {
            throw Err.handle(MPI.ERRORS_RETURN, "file " + filename, new RmaException(ioClass(e), "delete " + filename
                    + ": " + e));
        }
    }

    /** Truncates or extends the file to {@code size} bytes (MPI_FILE_SET_SIZE); collective. */
    public void setSize(long size) throws MPIException {
        io(() -> {
            if (size < 0) {
                throw new RmaException(ErrorClass.ERR_ARG, "setSize: negative size " + size);
            }
            if (comm.getRank() == 0) {
                resize(size, true);
            }
            return null;
        });
        comm.barrier();
    }

    private void resize(long size, boolean shrink) throws IOException {
        long now = ch.size();
        if (size < now && shrink) {
            ch.truncate(size);
        } else if (size > now) {
            ch.write(ByteBuffer.allocate(1), size - 1);
        }
    }

    /** Makes the file at least {@code size} bytes long (MPI_FILE_PREALLOCATE); collective. */
    public void preallocate(long size) throws MPIException {
        io(() -> {
            if (size < 0) {
                throw new RmaException(ErrorClass.ERR_ARG, "preallocate: negative size " + size);
            }
            if (comm.getRank() == 0) {
                resize(size, false);
            }
            return null;
        });
        comm.barrier();
    }

    /** The size of the file in bytes (MPI_FILE_GET_SIZE). */
    public long getSize() throws MPIException {
        return size();
    }

    /** The group of the communicator the file was opened with (MPI_FILE_GET_GROUP). */
    public Group getGroup() throws MPIException {
        MPI.check();
        return comm.getGroup();
    }

    /** The access mode it was opened with (MPI_FILE_GET_AMODE). */
    public int getAMode() throws MPIException {
        MPI.check();
        return amode;
    }

    /** Sets hints (MPI_FILE_SET_INFO); jrma keeps them and reports them back. */
    public void setInfo(Info info) throws MPIException {
        MPI.check();
        this.info = Info.ji(info) == null ? new Info() : info.dup();
    }

    /** The hints in use (MPI_FILE_GET_INFO): a new Info object. */
    public Info getInfo() throws MPIException {
        MPI.check();
        return info.dup();
    }

    /**
     * Sets the view (MPI_FILE_SET_VIEW); collective. Offsets then count {@code etype}s of the data the file
     * type selects, tiled from byte {@code disp} (its displacements must be non-negative and increasing, as MPI
     * says); both file pointers go back to 0.
     */
    public void setView(long disp, Datatype etype, Datatype filetype, String datarep) throws MPIException {
        setView(disp, etype, filetype, datarep, MPI.INFO_NULL);
    }

    /** Sets the view with hints (MPI_FILE_SET_VIEW); collective. */
    public void setView(long disp, Datatype etype, Datatype filetype, String datarep, Info info) throws MPIException {
        exec(() -> {
            if (disp < 0) {
                throw new RmaException(ErrorClass.ERR_ARG, "setView: negative displacement " + disp);
            }
            io.jrma.Datatype e = Datatype.jt(etype);
            io.jrma.Datatype f = Datatype.jt(filetype);
            if (datarep == null || !(datarep.equals("native") || datarep.equals("internal"))) {
                throw new RmaException(ErrorClass.ERR_UNSUPPORTED_DATAREP, "setView: data representation " + datarep
                        + " (jrma has \"native\")");
            }
            if (e.size() == 0 || f.size() % e.size() != 0) {
                throw new RmaException(ErrorClass.ERR_ARG, "setView: the file type must consist of whole etypes");
            }
            long[] off = null;
            long[] len = null;
            if (f.size() != f.extent() || f.lb() != 0 || f.trueLb() != 0) {
                // a file type with holes (or gaps at its ends): its data blocks, tiled every extent
                TypeLayout l = f.layout();
                off = new long[l.blockCount()];
                len = new long[l.blockCount()];
                long last = 0;
                for (int i = 0; i < off.length; i++) {
                    off[i] = l.blockOffset(i);
                    len[i] = l.blockLength(i);
                    if (off[i] < last) {
                        throw new RmaException(ErrorClass.ERR_ARG, "setView: the file type's displacements must be"
                                + " non-negative and increasing (MPI)");
                    }
                    last = off[i] + len[i];
                }
                if (f.size() == 0 || f.extent() <= 0) {
                    throw new RmaException(ErrorClass.ERR_ARG, "setView: the file type has no data or no extent");
                }
            }
            blockOff = off;
            blockLen = len;
            tileData = f.size();
            tileExtent = f.extent();
            view = new FileView(disp, etype, filetype, datarep);
            pointer = 0;
        });
        if (comm.getRank() == 0) {
            moveShared(0, true);
        }
        comm.barrier();
    }

    /** The view (MPI_FILE_GET_VIEW). */
    public FileView getView() {
        return view;
    }

    // ------------------------------------------------------------------------------ explicit offsets

    /** Reads at {@code offset} etypes into {@code buf} (MPI_FILE_READ_AT). */
    public Status readAt(long offset, Object buf, int count, Datatype type) throws MPIException {
        return readBytes(run(() -> dataPos(offset)), buf, count, type);
    }

    /** Collective {@link #readAt} (MPI_FILE_READ_AT_ALL). */
    public Status readAtAll(long offset, Object buf, int count, Datatype type) throws MPIException {
        return readAt(offset, buf, count, type);
    }

    /** Writes {@code buf} at {@code offset} etypes (MPI_FILE_WRITE_AT). */
    public Status writeAt(long offset, Object buf, int count, Datatype type) throws MPIException {
        return writeBytes(run(() -> dataPos(offset)), buf, count, type);
    }

    /** Collective {@link #writeAt} (MPI_FILE_WRITE_AT_ALL). */
    public Status writeAtAll(long offset, Object buf, int count, Datatype type) throws MPIException {
        return writeAt(offset, buf, count, type);
    }

    /** Nonblocking {@link #readAt} of a direct buffer (MPI_FILE_IREAD_AT); complete when returned. */
    public Request iReadAt(long offset, Buffer buf, int count, Datatype type) throws MPIException {
        return Request.done(this, readAt(offset, direct(buf), count, type));
    }

    /** Nonblocking {@link #writeAt} of a direct buffer (MPI_FILE_IWRITE_AT); complete when returned. */
    public Request iWriteAt(long offset, Buffer buf, int count, Datatype type) throws MPIException {
        return Request.done(this, writeAt(offset, direct(buf), count, type));
    }

    /** Nonblocking {@link #readAtAll} of a direct buffer (MPI_FILE_IREAD_AT_ALL); complete when returned. */
    public Request iReadAtAll(long offset, Buffer buf, int count, Datatype type) throws MPIException {
        return Request.done(this, readAtAll(offset, direct(buf), count, type));
    }

    /** Nonblocking {@link #writeAtAll} of a direct buffer (MPI_FILE_IWRITE_AT_ALL); complete when returned. */
    public Request iWriteAtAll(long offset, Buffer buf, int count, Datatype type) throws MPIException {
        return Request.done(this, writeAtAll(offset, direct(buf), count, type));
    }

    // ------------------------------------------------------------------------ individual file pointer

    /** Reads at the individual file pointer and moves it (MPI_FILE_READ). */
    public Status read(Object buf, int count, Datatype type) throws MPIException {
        return readAtPointer(buf, count, type);
    }

    /** Collective {@link #read} (MPI_FILE_READ_ALL). */
    public Status readAll(Object buf, int count, Datatype type) throws MPIException {
        return readAtPointer(buf, count, type);
    }

    /** Writes at the individual file pointer and moves it (MPI_FILE_WRITE). */
    public Status write(Object buf, int count, Datatype type) throws MPIException {
        return writeAtPointer(buf, count, type);
    }

    /** Collective {@link #write} (MPI_FILE_WRITE_ALL). */
    public Status writeAll(Object buf, int count, Datatype type) throws MPIException {
        return writeAtPointer(buf, count, type);
    }

    /** Nonblocking {@link #read} of a direct buffer (MPI_FILE_IREAD); complete when returned. */
    public Request iRead(Buffer buf, int count, Datatype type) throws MPIException {
        return Request.done(this, read(direct(buf), count, type));
    }

    /** Nonblocking {@link #write} of a direct buffer (MPI_FILE_IWRITE); complete when returned. */
    public Request iWrite(Buffer buf, int count, Datatype type) throws MPIException {
        return Request.done(this, write(direct(buf), count, type));
    }

    /** Nonblocking {@link #readAll} of a direct buffer (MPI_FILE_IREAD_ALL); complete when returned. */
    public Request iReadAll(Buffer buf, int count, Datatype type) throws MPIException {
        return Request.done(this, readAll(direct(buf), count, type));
    }

    /** Nonblocking {@link #writeAll} of a direct buffer (MPI_FILE_IWRITE_ALL); complete when returned. */
    public Request iWriteAll(Buffer buf, int count, Datatype type) throws MPIException {
        return Request.done(this, writeAll(direct(buf), count, type));
    }

    /**
     * Moves the individual file pointer (MPI_FILE_SEEK): {@link MPI#SEEK_SET}, {@link MPI#SEEK_CUR},
     * {@link MPI#SEEK_END}.
     */
    public void seek(long offset, int whence) throws MPIException {
        pointer = seekTo(pointer, offset, whence);
    }

    private long seekTo(long from, long offset, int whence) throws MPIException {
        long end = whence == MPI.SEEK_END ? size() : 0;
        return run(() -> {
            long to;
            if (whence == MPI.SEEK_SET) {
                to = offset;
            } else if (whence == MPI.SEEK_CUR) {
                to = from + offset;
            } else if (whence == MPI.SEEK_END) {
                to = Math.max(0, end - view.getDisp()) / etypeSize() + offset;
            } else {
                throw new RmaException(ErrorClass.ERR_ARG,
                        "seek: whence " + whence + " is not SEEK_SET, SEEK_CUR or SEEK_END");
            }
            if (to < 0) {
                throw new RmaException(ErrorClass.ERR_ARG, "seek: the position would be negative (" + to + ")");
            }
            return to;
        });
    }

    /** The individual file pointer, in etypes (MPI_FILE_GET_POSITION). */
    public long getPosition() throws MPIException {
        MPI.check();
        return pointer;
    }

    /** The byte position of {@code offset} etypes of the view (MPI_FILE_GET_BYTE_OFFSET). */
    public long getByteOffset(long offset) throws MPIException {
        return run(() -> byteOffset(offset));
    }

    // ---------------------------------------------------------------------------- shared file pointer

    /**
     * Adds {@code delta} etypes to the shared file pointer (or sets it to {@code delta}) and returns its former
     * value: one atomic operation on rank 0's window, whichever JVM the caller is in.
     */
    private long moveShared(long delta, boolean set) throws MPIException {
        Win w = sharedWin;
        if (w == null) {
            exec(() -> {
                throw new RmaException(ErrorClass.ERR_FILE, "the file " + name + " is closed");
            });
        }
        LongBuffer in = MPI.newLongBuffer(1).put(0, delta);
        LongBuffer out = MPI.newLongBuffer(1);
        try {
            w.lock(MPI.LOCK_SHARED, 0, 0);
            try {
                w.fetchAndOp(in, out, MPI.LONG, 0, 0, set ? MPI.REPLACE : MPI.SUM);
            } finally {
                w.unlock(0);
            }
        } catch (MPIException e) {
            exec(() -> {
                throw new RmaException(ErrorClass.of(e.getErrorClass()), "shared file pointer: " + e.getMessage());
            });
        }
        return out.get(0);
    }

    /** Etypes of the view that {@code count} elements of {@code type} fill. */
    private long etypes(int count, Datatype type) throws MPIException {
        return run(() -> {
            if (count < 0) {
                throw new RmaException(ErrorClass.ERR_COUNT, "negative count " + count);
            }
            return (long) count * Datatype.jt(type).size() / etypeSize();
        });
    }

    /** Reads at the shared file pointer and moves it (MPI_FILE_READ_SHARED); not collective. */
    public Status readShared(Object buf, int count, Datatype type) throws MPIException {
        long at = moveShared(etypes(count, type), false);
        return readBytes(run(() -> dataPos(at)), buf, count, type);
    }

    /** Writes at the shared file pointer and moves it (MPI_FILE_WRITE_SHARED); not collective. */
    public Status writeShared(Object buf, int count, Datatype type) throws MPIException {
        long at = moveShared(etypes(count, type), false);
        return writeBytes(run(() -> dataPos(at)), buf, count, type);
    }

    /** Nonblocking {@link #readShared} of a direct buffer (MPI_FILE_IREAD_SHARED); complete when returned. */
    public Request iReadShared(Buffer buf, int count, Datatype type) throws MPIException {
        return Request.done(this, readShared(direct(buf), count, type));
    }

    /** Nonblocking {@link #writeShared} of a direct buffer (MPI_FILE_IWRITE_SHARED); complete when returned. */
    public Request iWriteShared(Buffer buf, int count, Datatype type) throws MPIException {
        return Request.done(this, writeShared(direct(buf), count, type));
    }

    /** This rank's data position (bytes) in an ordered access of {@code bytes} bytes; moves the shared pointer. */
    private long ordered(long bytes) throws MPIException {
        long[] mine = {bytes};
        long[] before = {0};
        long[] total = {0};
        comm.allReduce(mine, total, 1, MPI.LONG, MPI.SUM);
        if (comm instanceof Intracomm) {
            ((Intracomm) comm).exScan(mine, before, 1, MPI.LONG, MPI.SUM);
        }
        long[] base = {0};
        if (comm.getRank() == 0) {
            before[0] = 0;
            base[0] = moveShared(total[0] / etypeSize(), false);
        }
        comm.bcast(base, 1, MPI.LONG, 0);
        return run(() -> dataPos(base[0])) + before[0];
    }

    /** Collective read in rank order at the shared file pointer (MPI_FILE_READ_ORDERED). */
    public Status readOrdered(Object buf, int count, Datatype type) throws MPIException {
        long at = ordered(run(() -> (long) count * Datatype.jt(type).size()));
        return readBytes(at, buf, count, type);
    }

    /** Collective write in rank order at the shared file pointer (MPI_FILE_WRITE_ORDERED). */
    public Status writeOrdered(Object buf, int count, Datatype type) throws MPIException {
        long at = ordered(run(() -> (long) count * Datatype.jt(type).size()));
        return writeBytes(at, buf, count, type);
    }

    /** Moves the shared file pointer (MPI_FILE_SEEK_SHARED); collective, every rank gives the same arguments. */
    public void seekShared(long offset, int whence) throws MPIException {
        comm.barrier(); // shared-pointer accesses before the seek are done
        if (comm.getRank() == 0) {
            long to = seekTo(moveShared(0, false), offset, whence);
            moveShared(to, true);
        }
        comm.barrier();
    }

    /** The shared file pointer, in etypes (MPI_FILE_GET_POSITION_SHARED). */
    public long getPositionShared() throws MPIException {
        return moveShared(0, false);
    }

    // ------------------------------------------------------------------------------- split collectives

    private void begin(Status s) {
        beginStatus = s;
    }

    private Status end() throws MPIException {
        Status s = beginStatus;
        beginStatus = null;
        if (s == null) {
            exec(() -> {
                throw new RmaException(ErrorClass.ERR_OTHER, "a split collective end without its begin");
            });
        }
        return s;
    }

    /** MPI_FILE_READ_AT_ALL_BEGIN: the read is done here, {@link #readAtAllEnd} returns its status. */
    public void readAtAllBegin(long offset, Object buf, int count, Datatype type) throws MPIException {
        begin(readAtAll(offset, buf, count, type));
    }

    /** MPI_FILE_READ_AT_ALL_END. */
    public Status readAtAllEnd(Object buf) throws MPIException {
        return end();
    }

    /** MPI_FILE_WRITE_AT_ALL_BEGIN. */
    public void writeAtAllBegin(long offset, Object buf, int count, Datatype type) throws MPIException {
        begin(writeAtAll(offset, buf, count, type));
    }

    /** MPI_FILE_WRITE_AT_ALL_END. */
    public Status writeAtAllEnd(Object buf) throws MPIException {
        return end();
    }

    /** MPI_FILE_READ_ALL_BEGIN. */
    public void readAllBegin(Object buf, int count, Datatype type) throws MPIException {
        begin(readAll(buf, count, type));
    }

    /** MPI_FILE_READ_ALL_END. */
    public Status readAllEnd(Object buf) throws MPIException {
        return end();
    }

    /** MPI_FILE_WRITE_ALL_BEGIN. */
    public void writeAllBegin(Object buf, int count, Datatype type) throws MPIException {
        begin(writeAll(buf, count, type));
    }

    /** MPI_FILE_WRITE_ALL_END. */
    public Status writeAllEnd(Object buf) throws MPIException {
        return end();
    }

    /** MPI_FILE_READ_ORDERED_BEGIN. */
    public void readOrderedBegin(Object buf, int count, Datatype type) throws MPIException {
        begin(readOrdered(buf, count, type));
    }

    /** MPI_FILE_READ_ORDERED_END. */
    public Status readOrderedEnd(Object buf) throws MPIException {
        return end();
    }

    /** MPI_FILE_WRITE_ORDERED_BEGIN. */
    public void writeOrderedBegin(Object buf, int count, Datatype type) throws MPIException {
        begin(writeOrdered(buf, count, type));
    }

    /** MPI_FILE_WRITE_ORDERED_END. */
    public Status writeOrderedEnd(Object buf) throws MPIException {
        return end();
    }

    // ------------------------------------------------------------------------------------ consistency

    /**
     * The extent of {@code type} in the file, in base elements as {@link Datatype#getExtent}
     * (MPI_FILE_GET_TYPE_EXTENT).
     */
    public int getTypeExtent(Datatype type) throws MPIException {
        return type.getExtent();
    }

    /** Sets atomic mode (MPI_FILE_SET_ATOMICITY); collective. jrma's positional writes are each one system call. */
    public void setAtomicity(boolean flag) throws MPIException {
        MPI.check();
        atomic = flag;
        comm.barrier();
    }

    /** Whether atomic mode is set (MPI_FILE_GET_ATOMICITY). */
    public boolean getAtomicity() throws MPIException {
        MPI.check();
        return atomic;
    }

    /** Flushes written data to the storage device (MPI_FILE_SYNC); collective. */
    public void sync() throws MPIException {
        io(() -> {
            ch.force(true);
            return null;
        });
        comm.barrier();
    }

    // ---------------------------------------------------------------------------------------- errors

    /** Sets the error handler (MPI_FILE_SET_ERRHANDLER); files start with {@link MPI#ERRORS_RETURN}. */
    public void setErrhandler(Errhandler errhandler) throws MPIException {
        exec(() -> {
            if (errhandler == null) {
                throw new RmaException(ErrorClass.ERR_ARG, "error handler is null");
            }
            errh = errhandler;
        });
    }

    /** The error handler (MPI_FILE_GET_ERRHANDLER). */
    public Errhandler getErrhandler() throws MPIException {
        MPI.check();
        return errh;
    }

    /**
     * Invokes the error handler (MPI_FILE_CALL_ERRHANDLER): aborts under ERRORS_ARE_FATAL, returns under ERRORS_RETURN.
     */
    public void callErrhandler(int errorCode) throws MPIException {
        MPI.check();
        if (errh.fatal && errorCode != MPI.SUCCESS) {
            throw Err.raise(errh, errorCode, "MPI error " + errorCode + " raised by callErrhandler", siteName(), null);
        }
    }
}
