/** The admin listener: room API, analytics, the dashboard, metrics, health, bearer token. */
package io.anteroom.gateway.admin;
