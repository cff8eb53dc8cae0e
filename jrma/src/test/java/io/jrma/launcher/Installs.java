package io.jrma.launcher;

import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;

/** Makes a directory of jars, as an installation's lib/, from a class path (for jrmarun's {@code --prefix}). */
final class Installs {
    private Installs() {
    }

    /**
     * Fills {@code lib} with every entry of {@code classPath} but {@code except}: a jar is copied, a directory of
     * classes (a module's target/classes) is packed into a jar named for its module.
     */
    static void ofClassPath(Path lib, String classPath, Path except) throws IOException {
        Files.createDirectories(lib);
        int n = 0;
        for (String e : classPath.split(File.pathSeparator)) {
            Path p = Path.of(e).toAbsolutePath();
            if (e.isEmpty() || p.equals(except) || !Files.exists(p)) {
                continue;
            }
            if (Files.isDirectory(p)) {
                Path module = p.getParent() != null && p.getParent().getParent() != null
                        ? p.getParent().getParent().getFileName() : p.getFileName();
                jar(p, lib.resolve(module + "-" + n++ + ".jar"));
            } else {
                Path copy = lib.resolve(p.getFileName());
                if (!Files.exists(copy)) {
                    Files.copy(p, copy);
                }
            }
        }
    }

    private static void jar(Path dir, Path jar) throws IOException {
        List<Path> files;
        try (Stream<Path> s = Files.walk(dir)) {
            files = s.filter(Files::isRegularFile).sorted().toList();
        }
        try (OutputStream out = Files.newOutputStream(jar); JarOutputStream j = new JarOutputStream(out)) {
            for (Path f : files) {
                j.putNextEntry(new JarEntry(dir.relativize(f).toString().replace(File.separatorChar, '/')));
                Files.copy(f, j);
                j.closeEntry();
            }
        }
    }
}
