/**
 * The waiting room in a Spring Boot application: {@link
 * io.anteroom.spring.AnteroomAutoConfiguration} registers the Servlet filter over the rooms of
 * {@code anteroom.config}, with Micrometer meters and a health indicator.
 */
package io.anteroom.spring;
