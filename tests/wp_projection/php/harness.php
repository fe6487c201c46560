<?php
/**
 * A minimal stand-in for WordPress, enough to load the real cuecard bridge plugin and fire the
 * Data Machine actions at it.
 *
 * Usage: php harness.php PLUGIN_DIR SCRIPT.json
 * SCRIPT: {"home_url", "options_file", "substrate": bool, "transport": "wp"|"curl"|"stream",
 *          "options": {...}, "events": [{"action": "...", "args": [...]}]}
 * An argument {"__scope": {...}} becomes a WP_Agent_Memory_Scope object, {"__bytes_b64": "..."}
 * a binary string.
 * Prints one JSON object: {"delivered": [{envelope, body, headers, result}], "errors": [...]}.
 *
 * Faked WordPress functions: add_action, add_filter, do_action, apply_filters, did_action,
 * get_option, update_option, wp_cache_delete, home_url, get_current_blog_id, post_type_exists,
 * taxonomy_exists, and (transport "wp") wp_remote_post, is_wp_error,
 * wp_remote_retrieve_response_code with a minimal WP_Error.
 */

define( 'ABSPATH', __DIR__ . '/' );

$plugin_dir = $argv[1];
$script     = json_decode( file_get_contents( $argv[2] ), true );

$log_file = isset( $script['log_file'] ) ? $script['log_file'] : sys_get_temp_dir() . '/cuecard-harness-' . getmypid() . '.log';
ini_set( 'log_errors', '1' );
ini_set( 'error_log', $log_file );

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
function get_option( $name, $default = false ) {
	return array_key_exists( $name, $GLOBALS['options'] ) ? $GLOBALS['options'][ $name ] : $default;
}
function update_option( $name, $value, $autoload = null ) {
	$GLOBALS['options'][ $name ] = $value;
	file_put_contents( $GLOBALS['script']['options_file'], json_encode( $GLOBALS['options'] ) );
	return true;
}
function wp_cache_delete( $key, $group = '' ) {
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

if ( 'wp' === $script['transport'] ) {
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
			return new WP_Error( 'http_request_failed', 'connection refused' );
		}
		preg_match( '#^HTTP/\S+\s+(\d{3})#', $http_response_header[0], $match );
		return array( 'response' => array( 'code' => (int) $match[1] ), 'body' => $body );
	}
	function wp_remote_retrieve_response_code( $response ) {
		return $response['response']['code'];
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

$delivered = array();
add_action(
	'cuecard_bridge_delivered',
	function ( $envelope, $body, $headers, $result ) use ( &$delivered ) {
		$delivered[] = array( 'envelope' => $envelope, 'body' => $body, 'headers' => $headers, 'result' => $result );
	},
	10,
	4
);

require $plugin_dir . '/cuecard-bridge.php';

$errors = array();
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

$log = is_file( $log_file ) ? file_get_contents( $log_file ) : '';
echo json_encode( array( 'delivered' => $delivered, 'errors' => $errors, 'log' => $log ), JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE );
