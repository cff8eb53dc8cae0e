package io.jrma.transport.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrma.ErrorClass;
import io.jrma.RmaException;
import io.jrma.shm.ShmFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Ring files carry every packet between two JVMs of the host: a file at a ring's name that this JVM did not create
 * (another user's, a symlink) must be refused and left as it was, not deleted, followed or mapped; the creator of a
 * ring removed a pre-existing file of that name when its exclusive creation failed.
 */
class RingFilesPrivacyTest {
    private static final int CAPACITY = 64 << 10;
    private static final String PRECIOUS = "not a ring";

    @TempDir
    Path dir;

    @Test
    @Timeout(30)
    void anExistingFileAtTheRingNameIsRefusedAndKept() throws IOException {
        Path p = RingFiles.path(dir, ProcessHandle.current().pid(), "t", 1, 0);
        Files.writeString(p, PRECIOUS);
        RmaException e = assertThrows(RmaException.class,
                () -> RingFiles.create(p, CAPACITY, ProcessHandle.current().pid(), 1, 0));
        assertEquals(ErrorClass.ERR_FILE_EXISTS, e.errorClass());
        assertTrue(e.getMessage().contains(p.toString()), e.getMessage());
        assertEquals(PRECIOUS, Files.readString(p), "the other file was deleted or truncated");
    }

    @Test
    @Timeout(30)
    void aRingOfAnotherUserOrReadableByOthersIsNotMapped() throws IOException {
        Path p = RingFiles.path(dir, ProcessHandle.current().pid(), "t", 1, 0);
        RingFiles.Mapped m = RingFiles.create(p, CAPACITY, ProcessHandle.current().pid(), 1, 0);
        try {
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(p,
                    LinkOption.NOFOLLOW_LINKS)));
            RingFiles.open(p, CAPACITY, 1, 0).unmap(); // this user's, private: mapped
            Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rw-rw----"));
            RmaException e = assertThrows(RmaException.class, () -> RingFiles.open(p, CAPACITY, 1, 0));
            assertEquals(ErrorClass.ERR_ACCESS, e.errorClass());
            assertTrue(e.getMessage().contains(p.toString()), e.getMessage());
            Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rw-------"));
            Assumptions.assumeTrue(ShmFiles.currentUid() == 0, "only root can give a file away");
            Files.setOwner(p, p.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName("nobody"));
            RmaException o = assertThrows(RmaException.class, () -> RingFiles.open(p, CAPACITY, 1, 0));
            assertEquals(ErrorClass.ERR_ACCESS, o.errorClass());
            assertTrue(o.getMessage().contains("owned by"), o.getMessage());
        } finally {
            m.unmap();
        }
    }

    @Test
    @Timeout(30)
    void aSymlinkAtTheRingNameIsNotFollowed() throws IOException {
        Path real = RingFiles.path(dir, ProcessHandle.current().pid(), "t", 2, 0);
        RingFiles.Mapped m = RingFiles.create(real, CAPACITY, ProcessHandle.current().pid(), 1, 0);
        try {
            Path link = Files.createSymbolicLink(RingFiles.path(dir, ProcessHandle.current().pid(), "t", 1, 0), real);
            RmaException e = assertThrows(RmaException.class, () -> RingFiles.open(link, CAPACITY, 1, 0));
            assertTrue(e.getMessage().contains(link.toString()), e.getMessage());
            long pid = ProcessHandle.current().pid();
            assertThrows(RmaException.class, () -> RingFiles.create(link, CAPACITY, pid, 1, 0));
            assertTrue(Files.isSymbolicLink(link), "the symlink was removed");
        } finally {
            m.unmap();
        }
    }
}
