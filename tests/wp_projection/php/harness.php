<?php
/**
 * A stand-in for WordPress, enough to load the real cuecard bridge plugin the way WordPress loads
 * must-use plugins, fire Data Machine's actions at it, and run its queue the way Action Scheduler
 * or WP-Cron would, in a later request.
 *
 * Usage: php harness.php MU_PLUGINS_DIR SCRIPT.json
 * SCRIPT: {
 *   "home_url", "options_file", "log_file",
 *   "substrate": bool,                     guideline post type and taxonomy registered
 *   "transport": "wp"|"curl"|"stream",     "wp" defines the WordPress HTTP API
 *   "scheduler": "action_scheduler"|"wp_cron",
 *   "datamachine": "full"|"repository"|"none",  which of Data Machine's agent APIs exist
 *   "users": [{ID, user_login, role}], "agents": [{agent_id, agent_slug, owner_id}],
 *   "options": {...},                      options set before the request
 *   "events": [{"action": "...", "args": [...]}],   fired in this request
 *   "run_queue": bool (default true),      afterwards, run what the scheduler has due
 *   "advance": seconds,                    the scheduler's clock runs this far ahead
 *   "persist_at_end": bool,                write options once at the end (benchmark only)
 *   "finish_request": bool                 PHP-FPM: defines fastcgi_finish_request(), which marks
 *                                          the response as sent to the client
 *   "mysql": {"socket", "user", "database"}  options live in a real MariaDB/MySQL table
 *                                          `wp_options` (WordPress's schema; created when
 *                                          missing) and are read and written as WordPress's
 *                                          option API does, one autocommitted statement each;
 *                                          "wpdb": false leaves $wpdb undefined (no transactions);
 *                                          "record" defines one that only records its queries
 * }
 * An argument {"__scope": {...}} becomes a WP_Agent_Memory_Scope object, {"__bytes_b64": "..."}
 * a binary string.
 * Prints one JSON object: {"delivered": [{envelope, body, headers, result, phase ("request": during
 * the write's request, "scheduler": a later run), after_response (the response was sent)}], "errors": [...],
 * "log": "...", "summary": the bridge's queue summary, "request_ms": float (the request's actions and shutdown), "queue_ms": float
 * (the scheduler's runs), "queue": [...], "scheduled": [{scheduler, hook, in, status}]}.
 *
 * Options persist in options_file between runs (the database); every top-level *.php file in
 * MU_PLUGINS_DIR is included, as WordPress does with wp-content/mu-plugins.
 *
 * As the router of PHP's built-in server (`HARNESS_PLUGIN_DIR=… HARNESS_SCRIPT=… php -S
 * 127.0.0.1:PORT harness.php`) it serves GET /wp-json/<namespace>/<route> from the routes
 * registered on `rest_api_init` (the bridge's, and Data Machine's file routes over the disk store
 * under the script's "uploads_dir"), with permission callbacks; 404 for anything else.
 */

define( 'ABSPATH', __DIR__ . '/' );

// As a router of PHP's built-in web server (`php -S`), the harness serves WordPress's REST API
// instead (the folders come from the environment): HARNESS_PLUGIN_DIR, HARNESS_SCRIPT.
$serving    = ( 'cli-server' === PHP_SAPI );
$plugin_dir = $serving ? getenv( 'HARNESS_PLUGIN_DIR' ) : $argv[1];
$script     = json_decode( file_get_contents( $serving ? getenv( 'HARNESS_SCRIPT' ) : $argv[2] ), true );
$script    += array(
	'scheduler'   => 'action_scheduler',
	'transport'   => 'wp',
	'substrate'   => false,
	'datamachine' => 'full',
	'run_queue'   => true,
	'advance'     => 0,
	'users'       => array( array( 'ID' => 1, 'user_login' => 'admin', 'role' => 'administrator' ) ),
	'agents'      => array( array( 'agent_id' => 1, 'agent_slug' => 'admin', 'owner_id' => 1 ) ),
);

$log_file = isset( $script['log_file'] ) ? $script['log_file'] : sys_get_temp_dir() . '/cuecard-harness-' . getmypid() . '.log';
ini_set( 'log_errors', '1' );
ini_set( 'error_log', $log_file );

$GLOBALS['option_writes'] = 0;
$GLOBALS['hooks']   = array();
$GLOBALS['fired']   = array();
$GLOBALS['script']  = $script;
$GLOBALS['options'] = is_file( $script['options_file'] ) ? json_decode( file_get_contents( $script['options_file'] ), true ) : array();
foreach ( ( isset( $script['options'] ) ? $script['options'] : array() ) as $name => $value ) {
	$GLOBALS['options'][ $name ] = $value;
}

function add_action( $hook, $callback, $priority = 10, $accepted_args = 1 ) {
	$GLOBALS['hooks'][ $hook ][ $priority ][] = array( $callback, $accepted_args );
	return true;
}
function add_filter( $hook, $callback, $priority = 10, $accepted_args = 1 ) {
	return add_action( $hook, $callback, $priority, $accepted_args );
}
function do_action( $hook, ...$args ) {
	$GLOBALS['fired'][ $hook ] = ( isset( $GLOBALS['fired'][ $hook ] ) ? $GLOBALS['fired'][ $hook ] : 0 ) + 1;
	if ( empty( $GLOBALS['hooks'][ $hook ] ) ) {
		return;
	}
	ksort( $GLOBALS['hooks'][ $hook ] );
	foreach ( $GLOBALS['hooks'][ $hook ] as $callbacks ) {
		foreach ( $callbacks as $entry ) {
			call_user_func_array( $entry[0], array_slice( $args, 0, $entry[1] ) );
		}
	}
}
function do_action_ref_array( $hook, $args ) {
	do_action( $hook, ...$args );
}
function apply_filters( $hook, $value, ...$args ) {
	if ( empty( $GLOBALS['hooks'][ $hook ] ) ) {
		return $value;
	}
	ksort( $GLOBALS['hooks'][ $hook ] );
	foreach ( $GLOBALS['hooks'][ $hook ] as $callbacks ) {
		foreach ( $callbacks as $entry ) {
			$value = call_user_func_array( $entry[0], array_slice( array_merge( array( $value ), $args ), 0, $entry[1] ) );
		}
	}
	return $value;
}
function did_action( $hook ) {
	return isset( $GLOBALS['fired'][ $hook ] ) ? $GLOBALS['fired'][ $hook ] : 0;
}

// -- options: the database, persisted in options_file --------------------------------------------

function harness_save_options( $force = false ) {
	++$GLOBALS['option_writes'];
	if ( ! empty( $GLOBALS['script']['persist_at_end'] ) && ! $force ) {
		return; // the benchmark's CPU-only mode: one write when the request ends
	}
	file_put_contents( $GLOBALS['script']['options_file'], json_encode( $GLOBALS['options'] ), LOCK_EX );
}
// With "mysql", WordPress's own statements on a real `wp_options` table: a non-autoloaded option
// is read with one SELECT (then cached for the request until wp_cache_delete), added with an
// INSERT … ON DUPLICATE KEY UPDATE, changed with an UPDATE (skipped when the value is the same),
// removed with a DELETE; values are PHP-serialized; every statement autocommits.
$GLOBALS['db']    = null;
$GLOBALS['cache'] = array();
if ( ! empty( $script['mysql'] ) ) {
	$GLOBALS['db'] = new mysqli( null, $script['mysql']['user'], '', $script['mysql']['database'], 0, $script['mysql']['socket'] );
	$GLOBALS['db']->query(
		'CREATE TABLE IF NOT EXISTS wp_options ( option_id bigint(20) unsigned NOT NULL auto_increment, '
		. "option_name varchar(191) NOT NULL default '', option_value longtext NOT NULL, "
		. "autoload varchar(20) NOT NULL default 'yes', PRIMARY KEY (option_id), UNIQUE KEY option_name (option_name), "
		. 'KEY autoload (autoload) ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_520_ci'
	);
}
/** WordPress's $wpdb, as far as the bridge uses it: query() of a statement, false on failure. */
final class Harness_WPDB {
	public $queries = array();
	public function query( $sql ) {
		$this->queries[] = $sql;
		return ( $GLOBALS['db'] && false === $GLOBALS['db']->query( $sql ) ) ? false : 0;
	}
}
if ( ( $GLOBALS['db'] && ( ! isset( $script['wpdb'] ) || $script['wpdb'] ) ) || ( isset( $script['wpdb'] ) && 'record' === $script['wpdb'] ) ) {
	$GLOBALS['wpdb'] = new Harness_WPDB();
}
function harness_db_get( $name ) {
	if ( ! array_key_exists( $name, $GLOBALS['cache'] ) ) {
		$statement = $GLOBALS['db']->prepare( 'SELECT option_value FROM wp_options WHERE option_name = ? LIMIT 1' );
		$statement->bind_param( 's', $name );
		$statement->execute();
		$row = $statement->get_result()->fetch_row();
		$GLOBALS['cache'][ $name ] = $row ? array( unserialize( $row[0] ) ) : null;
	}
	return $GLOBALS['cache'][ $name ];
}
function harness_db_write( $sql, $name, $value = null ) {
	++$GLOBALS['option_writes'];
	$statement = $GLOBALS['db']->prepare( $sql );
	if ( null === $value ) {
		$statement->bind_param( 's', $name );
	} else {
		$serialized = serialize( $value );
		$statement->bind_param( 'ss', $name, $serialized );
	}
	$statement->execute();
	unset( $GLOBALS['cache'][ $name ] );
	return $statement->affected_rows;
}
function get_option( $name, $default = false ) {
	if ( $GLOBALS['db'] ) {
		$found = harness_db_get( $name );
		return null === $found ? $default : $found[0];
	}
	return array_key_exists( $name, $GLOBALS['options'] ) ? $GLOBALS['options'][ $name ] : $default;
}
function add_option( $name, $value = '', $deprecated = '', $autoload = null ) {
	if ( $GLOBALS['db'] ) {
		if ( null !== harness_db_get( $name ) ) {
			return false;
		}
		harness_db_write( "INSERT INTO wp_options (option_name, option_value, autoload) VALUES (?, ?, 'no') ON DUPLICATE KEY UPDATE option_name = VALUES(option_name), option_value = VALUES(option_value)", $name, $value );
		return true;
	}
	if ( array_key_exists( $name, $GLOBALS['options'] ) ) {
		return false;
	}
	$GLOBALS['options'][ $name ] = $value;
	harness_save_options();
	return true;
}
function update_option( $name, $value, $autoload = null ) {
	if ( $GLOBALS['db'] ) {
		$found = harness_db_get( $name );
		if ( null === $found ) {
			return add_option( $name, $value );
		}
		if ( $found[0] === $value ) {
			return false;
		}
		$statement = $GLOBALS['db']->prepare( 'UPDATE wp_options SET option_value = ? WHERE option_name = ?' );
		$serialized = serialize( $value );
		$statement->bind_param( 'ss', $serialized, $name );
		$statement->execute();
		++$GLOBALS['option_writes'];
		unset( $GLOBALS['cache'][ $name ] );
		return true;
	}
	$GLOBALS['options'][ $name ] = $value;
	harness_save_options();
	return true;
}
function delete_option( $name ) {
	if ( $GLOBALS['db'] ) {
		return harness_db_write( 'DELETE FROM wp_options WHERE option_name = ?', $name ) > 0;
	}
	if ( ! array_key_exists( $name, $GLOBALS['options'] ) ) {
		return false;
	}
	unset( $GLOBALS['options'][ $name ] );
	harness_save_options();
	return true;
}
function wp_cache_delete( $key, $group = '' ) {
	unset( $GLOBALS['cache'][ $key ] );
	return true;
}
function home_url( $path = '' ) {
	return rtrim( $GLOBALS['script']['home_url'], '/' ) . '/' . ltrim( $path, '/' );
}
function get_current_blog_id() {
	return 1;
}
function post_type_exists( $type ) {
	return ! empty( $GLOBALS['script']['substrate'] ) && 'wp_guideline' === $type;
}
function taxonomy_exists( $taxonomy ) {
	return ! empty( $GLOBALS['script']['substrate'] ) && 'wp_guideline_type' === $taxonomy;
}
function sanitize_title( $title ) {
	$title = strtolower( trim( (string) $title ) );
	$title = preg_replace( '/\s+/', '-', $title );
	return preg_replace( '/[^a-z0-9_-]/', '', $title );
}
/** The site's users, ordered by ID; `fields` => 'ID' gives their ids as strings, as WP_User_Query. */
function get_users( $args = array() ) {
	$users = $GLOBALS['script']['users'];
	usort(
		$users,
		function ( $a, $b ) {
			return (int) $a['ID'] - (int) $b['ID'];
		}
	);
	if ( ! empty( $args['number'] ) && (int) $args['number'] > 0 ) {
		$users = array_slice( $users, 0, (int) $args['number'] );
	}
	if ( isset( $args['fields'] ) && 'ID' === $args['fields'] ) {
		return array_map(
			function ( $user ) {
				return (string) $user['ID'];
			},
			$users
		);
	}
	return array_map(
		function ( $user ) {
			return (object) $user;
		},
		$users
	);
}
function get_user_by( $field, $value ) {
	foreach ( $GLOBALS['script']['users'] as $user ) {
		if ( 'id' === $field && (int) $user['ID'] === (int) $value ) {
			return (object) $user;
		}
	}
	return false;
}

class WP_Error {
	private $message;
	public function __construct( $code = '', $message = '' ) {
		$this->message = $message;
	}
	public function get_error_message() {
		return $this->message;
	}
}
function is_wp_error( $thing ) {
	return $thing instanceof WP_Error;
}

// -- WP-Cron: the `cron` option, {timestamp: {hook: {md5(args): {schedule, args}}}} ---------------

function harness_now() {
	return time() + (int) $GLOBALS['script']['advance'];
}
function wp_schedule_single_event( $timestamp, $hook, $args = array(), $wp_error = false ) {
	$cron = get_option( 'cron', array() );
	$key  = md5( serialize( $args ) );
	foreach ( $cron as $at => $hooks ) {
		// WordPress refuses an identical event due within ten minutes of an existing one.
		if ( isset( $hooks[ $hook ][ $key ] ) && abs( (int) $at - (int) $timestamp ) <= 600 ) {
			return $wp_error ? new WP_Error( 'duplicate_event', 'A duplicate event already exists.' ) : false;
		}
	}
	$cron[ $timestamp ][ $hook ][ $key ] = array( 'schedule' => false, 'args' => $args );
	ksort( $cron );
	update_option( 'cron', $cron );
	return true;
}
function wp_next_scheduled( $hook, $args = array() ) {
	$key = md5( serialize( $args ) );
	foreach ( get_option( 'cron', array() ) as $at => $hooks ) {
		if ( isset( $hooks[ $hook ][ $key ] ) ) {
			return (int) $at;
		}
	}
	return false;
}
function wp_unschedule_event( $timestamp, $hook, $args = array(), $wp_error = false ) {
	$cron = get_option( 'cron', array() );
	$key  = md5( serialize( $args ) );
	unset( $cron[ $timestamp ][ $hook ][ $key ] );
	if ( empty( $cron[ $timestamp ][ $hook ] ) ) {
		unset( $cron[ $timestamp ][ $hook ] );
	}
	if ( empty( $cron[ $timestamp ] ) ) {
		unset( $cron[ $timestamp ] );
	}
	update_option( 'cron', $cron );
	return true;
}
/** wp-cron.php: runs every event due, unscheduling each before it runs. */
function harness_run_wp_cron() {
	$ran = 0;
	foreach ( get_option( 'cron', array() ) as $at => $hooks ) {
		if ( (int) $at > harness_now() ) {
			break;
		}
		foreach ( $hooks as $hook => $events ) {
			foreach ( $events as $event ) {
				wp_unschedule_event( $at, $hook, $event['args'] );
				do_action_ref_array( $hook, $event['args'] );
				++$ran;
			}
		}
	}
	return $ran;
}

// -- Action Scheduler (when Data Machine ships it): actions in the option `__action_scheduler` ----

if ( 'action_scheduler' === $script['scheduler'] ) {
	function harness_as_add( $timestamp, $hook, $args, $group ) {
		$actions   = get_option( '__action_scheduler', array() );
		$id        = count( $actions ) + 1;
		$actions[] = array( 'id' => $id, 'hook' => $hook, 'args' => $args, 'group' => $group, 'at' => (int) $timestamp, 'status' => 'pending' );
		update_option( '__action_scheduler', $actions );
		return $id;
	}
	function as_enqueue_async_action( $hook, $args = array(), $group = '', $unique = false, $priority = 10 ) {
		return harness_as_add( time(), $hook, $args, $group );
	}
	function as_schedule_single_action( $timestamp, $hook, $args = array(), $group = '', $unique = false, $priority = 10 ) {
		return harness_as_add( $timestamp, $hook, $args, $group );
	}
	/** True while a matching action is pending or in progress, as Action Scheduler answers. */
	function as_has_scheduled_action( $hook, $args = null, $group = '' ) {
		foreach ( get_option( '__action_scheduler', array() ) as $action ) {
			if ( $action['hook'] === $hook && in_array( $action['status'], array( 'pending', 'in-progress' ), true )
				&& ( '' === $group || $action['group'] === $group ) && ( null === $args || $action['args'] === $args ) ) {
				return true;
			}
		}
		return false;
	}
	/** The queue runner: claims each due pending action, runs it, marks it complete. */
	function harness_run_action_scheduler() {
		$ran = 0;
		foreach ( get_option( '__action_scheduler', array() ) as $i => $action ) {
			if ( 'pending' !== $action['status'] || $action['at'] > harness_now() ) {
				continue;
			}
			$GLOBALS['options']['__action_scheduler'][ $i ]['status'] = 'in-progress';
			harness_save_options();
			do_action_ref_array( $action['hook'], $action['args'] );
			$GLOBALS['options']['__action_scheduler'][ $i ]['status'] = 'complete';
			harness_save_options();
			++$ran;
		}
		return $ran;
	}
}

// -- the WordPress HTTP API ------------------------------------------------------------------------

if ( 'wp' === $script['transport'] ) {
	/** Posts with PHP streams, as WordPress's Requests transport would with its own sockets. */
	function wp_remote_post( $url, $args ) {
		$lines = array( 'Connection: close' );
		foreach ( $args['headers'] as $name => $value ) {
			$lines[] = $name . ': ' . $value;
		}
		$context = stream_context_create(
			array(
				'http' => array(
					'method'        => 'POST',
					'header'        => implode( "\r\n", $lines ),
					'content'       => $args['body'],
					'timeout'       => $args['timeout'],
					'ignore_errors' => true,
				),
			)
		);
		$body = @file_get_contents( $url, false, $context );
		if ( false === $body && empty( $http_response_header ) ) {
			return new WP_Error( 'http_request_failed', 'cURL error 28: connection refused or timed out' );
		}
		preg_match( '#^HTTP/\S+\s+(\d{3})#', $http_response_header[0], $match );
		return array( 'response' => array( 'code' => (int) $match[1] ), 'body' => $body );
	}
	function wp_remote_retrieve_response_code( $response ) {
		return $response['response']['code'];
	}
	function wp_remote_retrieve_body( $response ) {
		return $response['body'];
	}
}

// -- PHP-FPM: the response can be handed to the client before the request's work ends -------------

$GLOBALS['response_sent'] = false;
$GLOBALS['phase']         = 'request';
if ( ! empty( $script['finish_request'] ) ) {
	function fastcgi_finish_request() {
		$GLOBALS['response_sent'] = true;
		return true;
	}
}

/** Data Machine's scope value object (Agents API), with its public readonly fields. */
final class WP_Agent_Memory_Scope {
	public function __construct(
		public readonly string $layer,
		public readonly string $workspace_type,
		public readonly string $workspace_id,
		public readonly int $user_id,
		public readonly int $agent_id,
		public readonly string $filename
	) {}
	public function key(): string {
		return implode( ':', array( $this->layer, $this->workspace_type, $this->workspace_id, $this->user_id, $this->agent_id, $this->filename ) );
	}
}

if ( 'none' !== $script['datamachine'] ) {
	$GLOBALS['harness_directory_manager'] = ( 'full' === $script['datamachine'] );
	require __DIR__ . '/datamachine.php';
}

$delivered = array();
add_action(
	'cuecard_bridge_delivered',
	function ( $envelope, $body, $headers, $result ) use ( &$delivered ) {
		$delivered[] = array(
			'envelope'       => $envelope,
			'body'           => $body,
			'headers'        => $headers,
			'result'         => $result,
			'phase'          => $GLOBALS['phase'],
			'after_response' => $GLOBALS['response_sent'],
		);
	},
	10,
	4
);

// -- the REST API: register_rest_route, requests, responses ---------------------------------------

$GLOBALS['rest_routes'] = array();
function register_rest_route( $namespace, $route, $args = array() ) {
	$GLOBALS['rest_routes'][] = array( trim( $namespace, '/' ) . '/' . ltrim( $route, '/' ), $args );
	return true;
}
class WP_REST_Request {
	private $headers;
	private $params;
	public function __construct( array $headers, array $params ) {
		$this->headers = $headers;
		$this->params  = $params;
	}
	/** Header names as WordPress keys them: lower case, dashes as underscores. */
	public function get_header( $name ) {
		$key = strtolower( str_replace( '-', '_', $name ) );
		return isset( $this->headers[ $key ] ) ? $this->headers[ $key ] : null;
	}
	public function get_param( $name ) {
		return isset( $this->params[ $name ] ) ? $this->params[ $name ] : null;
	}
}
class WP_REST_Response {
	public $data;
	public $status;
	public function __construct( $data = null, $status = 200 ) {
		$this->data   = $data;
		$this->status = $status;
	}
}
function harness_serve_rest() {
	if ( function_exists( 'harness_datamachine_routes' ) && 'none' !== $GLOBALS['script']['datamachine'] ) {
		add_action( 'rest_api_init', 'harness_datamachine_routes', 10, 0 );
	}
	do_action( 'rest_api_init' );
	$path    = rawurldecode( (string) parse_url( $_SERVER['REQUEST_URI'], PHP_URL_PATH ) );
	$headers = array();
	foreach ( $_SERVER as $key => $value ) {
		if ( 0 === strpos( $key, 'HTTP_' ) ) {
			$headers[ strtolower( substr( $key, 5 ) ) ] = $value;
		}
	}
	header( 'Content-Type: application/json' );
	foreach ( $GLOBALS['rest_routes'] as $entry ) {
		list( $route, $args ) = $entry;
		if ( 'GET' !== $_SERVER['REQUEST_METHOD'] || 1 !== preg_match( '#^/wp-json/' . $route . '$#', $path, $match ) ) {
			continue;
		}
		$params  = array_merge( $_GET, array_filter( $match, 'is_string', ARRAY_FILTER_USE_KEY ) );
		$request = new WP_REST_Request( $headers, $params );
		if ( isset( $args['permission_callback'] ) && true !== call_user_func( $args['permission_callback'], $request ) ) {
			http_response_code( 401 );
			echo json_encode( array( 'code' => 'rest_forbidden', 'message' => 'Sorry, you are not allowed to do that.' ) );
			return;
		}
		$answer = call_user_func( $args['callback'], $request );
		if ( $answer instanceof WP_REST_Response ) {
			http_response_code( $answer->status );
			$answer = $answer->data;
		}
		echo json_encode( $answer, JSON_UNESCAPED_SLASHES );
		return;
	}
	http_response_code( 404 );
	echo json_encode( array( 'code' => 'rest_no_route', 'message' => 'No route was found matching the URL and request method.' ) );
}

// wp-settings.php: every top-level PHP file of the must-use plugins folder, in name order.
$mu_plugins = glob( rtrim( $plugin_dir, '/' ) . '/*.php' );
sort( $mu_plugins );
foreach ( $mu_plugins as $mu_plugin ) {
	include_once $mu_plugin;
}
if ( $serving ) {
	harness_serve_rest();
	return;
}

$errors  = array();
$started = hrtime( true );
foreach ( $script['events'] as $event ) {
	$args = array();
	foreach ( $event['args'] as $arg ) {
		if ( is_array( $arg ) && isset( $arg['__bytes_b64'] ) ) {
			$arg = base64_decode( $arg['__bytes_b64'] );
		}
		if ( is_array( $arg ) && isset( $arg['__scope'] ) ) {
			$s   = $arg['__scope'];
			$arg = new WP_Agent_Memory_Scope( $s['layer'], $s['workspace_type'], $s['workspace_id'], $s['user_id'], $s['agent_id'], $s['filename'] );
		}
		$args[] = $arg;
	}
	try {
		do_action( $event['action'], ...$args );
	} catch ( \Throwable $error ) {
		$errors[] = $error->getMessage();
	}
}
do_action( 'shutdown' );
$request_ms    = ( hrtime( true ) - $started ) / 1e6;
$request_saves = $GLOBALS['option_writes'];
if ( ! empty( $script['persist_at_end'] ) && $request_saves ) {
	harness_save_options( true );
}

// A later request: the scheduler runs what is due, until nothing is.
$GLOBALS['phase']         = 'scheduler';
$GLOBALS['response_sent'] = false;
$started = hrtime( true );
if ( $script['run_queue'] ) {
	for ( $round = 0; $round < 50; ++$round ) {
		$ran = ( 'action_scheduler' === $script['scheduler'] ) ? harness_run_action_scheduler() : harness_run_wp_cron();
		if ( 0 === $ran ) {
			break;
		}
	}
}

$queue_ms  = ( hrtime( true ) - $started ) / 1e6;
$scheduled = array();
foreach ( get_option( 'cron', array() ) as $at => $hooks ) {
	foreach ( array_keys( $hooks ) as $hook ) {
		$scheduled[] = array( 'scheduler' => 'wp_cron', 'hook' => $hook, 'in' => (int) $at - time(), 'status' => 'pending' );
	}
}
foreach ( get_option( '__action_scheduler', array() ) as $action ) {
	if ( 'complete' !== $action['status'] ) {
		$scheduled[] = array( 'scheduler' => 'action_scheduler', 'hook' => $action['hook'], 'in' => $action['at'] - time(), 'status' => $action['status'] );
	}
}

$log = is_file( $log_file ) ? file_get_contents( $log_file ) : '';
echo json_encode(
	array(
		'delivered'  => $delivered,
		'errors'     => $errors,
		'log'        => $log,
		'request_ms' => $request_ms,
		'queue_ms'   => $queue_ms,
		'request_option_writes' => $request_saves,
		'queue'      => method_exists( 'Cuecard_Bridge', 'queued' ) ? Cuecard_Bridge::queued() : array(),
		'summary'    => method_exists( 'Cuecard_Bridge', 'summary' ) ? Cuecard_Bridge::summary() : null,
		'wpdb_queries' => isset( $GLOBALS['wpdb'] ) ? $GLOBALS['wpdb']->queries : null,
		'scheduled'  => $scheduled,
	),
	JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE
);
