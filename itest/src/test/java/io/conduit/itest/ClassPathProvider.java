package io.conduit.itest;

import io.conduit.transport.Availability;

/**
 * Listed in this module's {@code META-INF/services}, so it is on the launcher's class path (where Pax Exam's
 * native container runs the framework) but in no bundle the API bundle can see: the API bundle's discovery inside
 * the framework must not find it (see {@code ApiBundleTest}).
 */
public final class ClassPathProvider extends FakeProvider {
    public ClassPathProvider() {
        super("classpath-only", false, 50, Availability.available());
    }
}
