/** The admin listener: room API, status page, metrics, health, bearer token. */
package io.anteroom.gateway.admin;
