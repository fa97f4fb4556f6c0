package io.conduit.epoll;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.conduit.transport.spi.NativeLibraryLoader;
import java.lang.reflect.Method;
import java.net.JarURLConnection;
import java.net.URL;
import java.net.URLClassLoader;
import org.junit.jupiter.api.Test;

/**
 * A refreshed or updated host bundle is a new class loader: it must get its own copy of the library, and the
 * library must bind to the <em>host's</em> loader although {@link NativeLibraryLoader} lives in another one
 * (as in OSGi, where the API bundle has its own loader). Here two child-first loaders each define their own
 * {@code io.conduit.epoll} classes over the built classes and the fragment jar, and share the API classes of
 * the test class path.
 */
class ClassLoaderIsolationTest {

    /** Defines {@code io.conduit.epoll.*} itself; everything else (API, JDK) comes from the parent. */
    private static final class HostBundleLoader extends URLClassLoader {
        HostBundleLoader(URL[] urls, ClassLoader parent) {
            super(urls, parent);
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            if (!name.startsWith("io.conduit.epoll.")) {
                return super.loadClass(name, resolve);
            }
            synchronized (getClassLoadingLock(name)) {
                Class<?> c = findLoadedClass(name);
                if (c == null) {
                    c = findClass(name);
                }
                if (resolve) {
                    resolveClass(c);
                }
                return c;
            }
        }
    }

    private static URL fragmentJar() throws Exception {
        String resource = NativeLibraryLoader.RESOURCE_FOLDER + System.mapLibraryName(Epoll.libraryName());
        URL url = ClassLoaderIsolationTest.class.getClassLoader().getResource(resource);
        assertTrue(url != null && "jar".equals(url.getProtocol()), "the fragment jar is on the test class path: " + url);
        return ((JarURLConnection) url.openConnection()).getJarFileURL();
    }

    private static Object call(Class<?> type, String method) throws Exception {
        Method m = type.getDeclaredMethod(method);
        m.setAccessible(true);
        return m.invoke(null);
    }

    @Test
    void eachHostClassLoaderLoadsItsOwnCopyAndGetsItsOwnNatives() throws Exception {
        URL classes = Epoll.class.getProtectionDomain().getCodeSource().getLocation();
        URL[] urls = {classes, fragmentJar()};
        ClassLoader parent = ClassLoaderIsolationTest.class.getClassLoader();
        try (HostBundleLoader first = new HostBundleLoader(urls, parent);
             HostBundleLoader second = new HostBundleLoader(urls, parent)) {
            for (HostBundleLoader loader : new HostBundleLoader[] {first, second}) {
                Class<?> epoll = loader.loadClass(Epoll.class.getName());
                assertNotSame(Epoll.class, epoll);
                assertNotSame(NativeLibraryLoader.class.getClassLoader(), epoll.getClassLoader());
                assertEquals(Boolean.TRUE, call(epoll, "isAvailable"), () -> {
                    try {
                        return String.valueOf(call(epoll, "unavailabilityCause"));
                    } catch (Exception e) {
                        return e.toString();
                    }
                });
                assertNull(call(epoll, "unavailabilityCause"));
                assertTrue(String.valueOf(call(epoll, "loadedHow")).contains("extracted"));
                // The natives of this loader's Native class are bound: JNI_OnLoad resolved Native through the
                // host's loader, which is the loader the caller-sensitive System::load method reference bound.
                Class<?> nativeClass = loader.loadClass(Native.class.getName());
                int epfd = (Integer) call(nativeClass, "epollCreate");
                assertTrue(epfd >= 0, "epoll_create1 through the isolated loader returned " + epfd);
                Method close = nativeClass.getDeclaredMethod("close", int.class);
                close.setAccessible(true);
                assertEquals(0, close.invoke(null, epfd));
            }
        }
        assertTrue(Epoll.isAvailable(), "the class path's own copy is unaffected");
    }

    /**
     * Why the host must create the method references: {@code System::load} written in <em>this</em> test class
     * binds the library to the test's loader even when the isolated loader's class is named as host, and the
     * isolated {@code Native} then has no natives.
     */
    @Test
    void methodReferencesBindTheLibraryToTheClassLoaderOfTheClassThatCreatedThem() throws Exception {
        URL[] urls = {Epoll.class.getProtectionDomain().getCodeSource().getLocation(), fragmentJar()};
        try (HostBundleLoader loader = new HostBundleLoader(urls, getClass().getClassLoader())) {
            Class<?> isolatedNative = loader.loadClass(Native.class.getName());
            String how = NativeLibraryLoader.load(Epoll.libraryName(), isolatedNative, System::loadLibrary,
                    System::load);
            assertTrue(how.contains("extracted"), how);
            Method create = isolatedNative.getDeclaredMethod("epollCreate");
            create.setAccessible(true);
            java.lang.reflect.InvocationTargetException e = org.junit.jupiter.api.Assertions.assertThrows(
                    java.lang.reflect.InvocationTargetException.class, () -> create.invoke(null));
            assertTrue(e.getCause() instanceof UnsatisfiedLinkError, e.getCause().toString());
        }
    }
}
