package io.jrma.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrma.ErrorClass;
import io.jrma.RmaException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Window and allocator segments hold every rank's memory, so their files must be this user's alone from the moment
 * they exist: created exclusively with mode 0600 (not 0644 as they were, readable by every local user), and a file at
 * the name jrma would use that jrma did not create (another user's, a symlink) is refused, never followed, truncated or
 * mapped. Runs as root here, which bypasses permissions: modes and owners are checked by reading attributes, and
 * "another user's file" is a file chowned to {@code nobody}.
 */
class ShmFilesPrivacyTest {
    private static final String PRECIOUS = "precious bytes of someone else";

    @TempDir
    Path dir;

    @Test
    @Timeout(30)
    void aCreatedSegmentIsPrivateToThisUser() throws IOException {
        try (ShmSegment s = ShmSegment.create(dir, ShmSegment.newName("test"), 10_000)) {
            Path p = dir.resolve(s.name());
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(p,
                    LinkOption.NOFOLLOW_LINKS)), "segment mode");
            assertEquals(ShmFiles.currentUid(), Files.getAttribute(p, "unix:uid", LinkOption.NOFOLLOW_LINKS));
        }
    }

    @Test
    @Timeout(30)
    void anExistingFileAtTheNameIsRefusedAndLeftAlone() throws IOException {
        String name = ShmSegment.newName("test");
        Path p = dir.resolve(name);
        Files.writeString(p, PRECIOUS);
        RmaException e = assertThrows(RmaException.class, () -> ShmSegment.create(dir, name, 4096));
        assertEquals(ErrorClass.ERR_FILE_EXISTS, e.errorClass());
        assertTrue(e.getMessage().contains(p.toString()), e.getMessage());
        assertEquals(PRECIOUS, Files.readString(p), "the file was truncated or overwritten");
    }

    @Test
    @Timeout(30)
    void aSymlinkAtTheNameIsNotFollowed() throws IOException {
        String name = ShmSegment.newName("test");
        Path target = dir.resolve("victim");
        Files.writeString(target, PRECIOUS);
        Path link = Files.createSymbolicLink(dir.resolve(name), target);
        RmaException e = assertThrows(RmaException.class, () -> ShmSegment.create(dir, name, 4096));
        assertTrue(e.getMessage().contains(link.toString()), e.getMessage());
        assertEquals(PRECIOUS, Files.readString(target), "the symlink was followed");
        assertTrue(Files.isSymbolicLink(link), "the symlink was removed");
        RmaException o = assertThrows(RmaException.class, () -> ShmSegment.open(dir, name, 4096));
        assertTrue(o.getMessage().contains(link.toString()), o.getMessage());
    }

    @Test
    @Timeout(30)
    void aSegmentOfAnotherUserIsNotMapped() throws IOException {
        String name = ShmSegment.newName("test");
        Path p = dir.resolve(name);
        Files.write(p, new byte[4096]);
        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rw-------"));
        Assumptions.assumeTrue(ShmFiles.currentUid() == 0, "only root can give a file to another user");
        UserPrincipal nobody = p.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName("nobody");
        Files.setOwner(p, nobody);
        RmaException e = assertThrows(RmaException.class, () -> ShmSegment.open(dir, name, 4096));
        assertEquals(ErrorClass.ERR_ACCESS, e.errorClass());
        assertTrue(e.getMessage().contains(p.toString()) && e.getMessage().contains("owned by"), e.getMessage());
    }

    @Test
    @Timeout(30)
    void aSegmentReadableByOthersIsNotMapped() throws IOException {
        String name = ShmSegment.newName("test");
        Path p = dir.resolve(name);
        Files.write(p, new byte[4096]);
        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rw-r--r--"));
        RmaException e = assertThrows(RmaException.class, () -> ShmSegment.open(dir, name, 4096));
        assertEquals(ErrorClass.ERR_ACCESS, e.errorClass());
        assertTrue(e.getMessage().contains(p.toString()) && e.getMessage().contains("rw-r--r--"), e.getMessage());
        assertEquals(4096, Files.size(p));
    }

    @Test
    @Timeout(30)
    void aSegmentOfThisUserIsMapped() throws IOException {
        String name = ShmSegment.newName("test");
        Path p = dir.resolve(name);
        Files.write(p, new byte[4096]);
        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rw-------"));
        try (ShmSegment s = ShmSegment.open(dir, name, 4096)) {
            assertEquals(4096, s.size());
        }
        assertTrue(Files.exists(p), "the opener does not remove the creator's file");
    }
}
