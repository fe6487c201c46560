<?php
/**
 * Plugin Name: cuecard Data Machine bridge
 * Description: Forwards Data Machine agent memory and guideline events, signed, to a cuecard receiver (one-way). Never slows or fails a memory write: envelopes are sent at shutdown, and every failure is swallowed and logged.
 * Version: 0.1.0
 * License: MIT
 *
 * Settings (first found wins): the constants CUECARD_BRIDGE_ENDPOINT and CUECARD_BRIDGE_SECRET,
 * then cuecard-bridge-settings.php beside this file (written by `cuecard wp bridge --out DIR`),
 * then the option `cuecard_bridge_settings`. Envelope schema: dm-memory-projection/v1.
 */

if ( ! defined( 'ABSPATH' ) ) {
	return;
}

if ( ! class_exists( 'Cuecard_Bridge' ) ) {

	final class Cuecard_Bridge {
		const SCHEMA      = 'dm-memory-projection/v1';
		const SEQ_OPTION  = 'cuecard_bridge_seq';
		const MAX_BODY    = 1000000;
		const MAX_READ    = 4000000;

		/** @var array|null */
		private static $settings = null;
		/** @var array */
		private static $pending = array();

		public static function boot() {
			add_action( 'datamachine_agent_memory_updated', array( __CLASS__, 'on_memory_updated' ), 10, 3 );
			add_action( 'datamachine_agent_memory_deleted', array( __CLASS__, 'on_memory_deleted' ), 10, 1 );
			add_action( 'datamachine_guideline_updated', array( __CLASS__, 'on_guideline_updated' ), 10, 2 );
			add_action( 'datamachine_composable_regenerated', array( __CLASS__, 'on_composable_regenerated' ), 10, 3 );
			add_action( 'shutdown', array( __CLASS__, 'flush' ), 100 );
		}

		public static function settings() {
			if ( null === self::$settings ) {
				$settings = array();
				if ( function_exists( 'get_option' ) ) {
					$option = get_option( 'cuecard_bridge_settings', array() );
					if ( is_array( $option ) ) {
						$settings = $option;
					}
				}
				$file = __DIR__ . '/cuecard-bridge-settings.php';
				if ( is_file( $file ) && is_readable( $file ) ) {
					$loaded = include $file;
					if ( is_array( $loaded ) ) {
						$settings = array_merge( $settings, $loaded );
					}
				}
				if ( defined( 'CUECARD_BRIDGE_ENDPOINT' ) ) {
					$settings['endpoint'] = CUECARD_BRIDGE_ENDPOINT;
				}
				if ( defined( 'CUECARD_BRIDGE_SECRET' ) ) {
					$settings['secret'] = CUECARD_BRIDGE_SECRET;
				}
				self::$settings = array_merge(
					array(
						'endpoint'    => '',
						'secret'      => '',
						'timeout'     => 2,
						'blocking'    => false,
						'agent_slug'  => null,
						'agent_slugs' => array(),
					),
					$settings
				);
			}
			return self::$settings;
		}

		/**
		 * Why a filename may not leave WordPress, or null: a segment git takes for its repository
		 * folder (`.git` in any case, with trailing dots or spaces, or its 8.3 name `GIT~1`).
		 */
		public static function refused_filename( $filename ) {
			foreach ( preg_split( '#[/\\\\]#', (string) $filename ) as $segment ) {
				$name = strtolower( rtrim( $segment, '. ' ) );
				if ( '.git' === $name || 'git~1' === $name ) {
					return 'segment ' . $segment . ' is git repository metadata';
				}
			}
			return null;
		}

		/** Logs and drops an event whose filename may not leave WordPress; true when it did. */
		private static function refuse_unsafe( $scope ) {
			$filename = is_object( $scope ) && isset( $scope->filename ) ? $scope->filename
				: ( is_array( $scope ) && isset( $scope['filename'] ) ? $scope['filename'] : '' );
			$reason   = self::refused_filename( $filename );
			if ( null !== $reason ) {
				error_log( 'cuecard bridge: event for ' . $filename . ' refused: ' . $reason );
				return true;
			}
			return false;
		}

		/** Data Machine: ( WP_Agent_Memory_Scope $scope, string $content, array $metadata ). */
		public static function on_memory_updated( $scope, $content = '', $metadata = array() ) {
			self::guard(
				function () use ( $scope, $content, $metadata ) {
					if ( self::refuse_unsafe( $scope ) ) {
						return;
					}
					$envelope             = self::base( 'memory.updated' );
					$envelope['scope']    = self::scope( $scope );
					$envelope            += self::content( (string) $content );
					$envelope['metadata'] = ( is_array( $metadata ) && $metadata ) ? $metadata : new \stdClass();
					self::enqueue( $envelope );
				}
			);
		}

		/** Data Machine: ( WP_Agent_Memory_Scope $scope ). */
		public static function on_memory_deleted( $scope ) {
			self::guard(
				function () use ( $scope ) {
					if ( self::refuse_unsafe( $scope ) ) {
						return;
					}
					$envelope          = self::base( 'memory.deleted' );
					$envelope['scope'] = self::scope( $scope );
					self::enqueue( $envelope );
				}
			);
		}

		/** Data Machine: ( int $post_id, string $type ); only with the guideline substrate. */
		public static function on_guideline_updated( $post_id, $type = '' ) {
			self::guard(
				function () use ( $post_id, $type ) {
					if ( ! self::has_guideline_substrate() ) {
						return;
					}
					$envelope                   = self::base( 'guideline.updated' );
					$envelope['post_id']        = (int) $post_id;
					$envelope['guideline_type'] = (string) $type;
					self::enqueue( $envelope );
				}
			);
		}

		/** Data Machine: ( string $filename, string $filepath, mixed $context ). */
		public static function on_composable_regenerated( $filename, $filepath = '', $context = array() ) {
			self::guard(
				function () use ( $filename, $filepath, $context ) {
					$filename          = (string) $filename;
					if ( self::refuse_unsafe( array( 'filename' => $filename ) ) ) {
						return;
					}
					$layer             = ( 'NETWORK.md' === $filename ) ? 'network' : 'shared';
					$envelope          = self::base( 'composable.regenerated' );
					$envelope['scope'] = self::scope(
						array(
							'layer'    => $layer,
							'filename' => $filename,
							'user_id'  => 0,
							'agent_id' => 0,
						)
					);
					if ( is_string( $filepath ) && '' !== $filepath && is_file( $filepath ) && ! is_link( $filepath )
						&& is_readable( $filepath ) && filesize( $filepath ) <= self::MAX_READ ) {
						$bytes = file_get_contents( $filepath );
						if ( false !== $bytes ) {
							$envelope += self::content( $bytes );
						}
					}
					$envelope['metadata'] = array( 'context' => self::scalars( $context ) );
					self::enqueue( $envelope );
				}
			);
		}

		public static function has_guideline_substrate() {
			return function_exists( 'post_type_exists' ) && function_exists( 'taxonomy_exists' )
				&& post_type_exists( 'wp_guideline' ) && taxonomy_exists( 'wp_guideline_type' );
		}

		/** Sends what this request queued; runs on `shutdown`, after the memory write finished. */
		public static function flush() {
			$pending       = self::$pending;
			self::$pending = array();
			foreach ( $pending as $envelope ) {
				self::guard(
					function () use ( $envelope ) {
						self::deliver( $envelope );
					}
				);
			}
		}

		/** Signs and posts one envelope; returns the transport result (never throws to callers). */
		public static function deliver( array $envelope ) {
			$settings = self::settings();
			if ( '' === (string) $settings['endpoint'] || '' === (string) $settings['secret'] ) {
				return array( 'ok' => false, 'error' => 'endpoint or secret not configured' );
			}
			$body = self::encode( $envelope );
			if ( false !== $body && strlen( $body ) > self::MAX_BODY && isset( $envelope['content'] ) ) {
				unset( $envelope['content'], $envelope['content_encoding'] );
				$metadata                             = isset( $envelope['metadata'] ) ? (array) $envelope['metadata'] : array();
				$metadata['cuecard_content_omitted'] = 'larger than the receiver accepts';
				$envelope['metadata']                 = $metadata;
				$body = self::encode( $envelope );
			}
			if ( false === $body ) {
				return array( 'ok' => false, 'error' => 'envelope could not be encoded' );
			}
			$timestamp = (string) time();
			$headers   = array(
				'Content-Type'        => 'application/json',
				'X-Cuecard-Timestamp' => $timestamp,
				'X-Cuecard-Signature' => 'sha256=' . hash_hmac( 'sha256', $timestamp . '.' . $body, (string) $settings['secret'] ),
			);
			$result = self::post( (string) $settings['endpoint'], $headers, $body, (float) $settings['timeout'], (bool) $settings['blocking'] );
			if ( ! $result['ok'] ) {
				error_log( 'cuecard bridge: event ' . $envelope['event_id'] . ' not delivered: ' . ( isset( $result['error'] ) ? $result['error'] : 'status ' . $result['status'] ) );
			}
			if ( function_exists( 'do_action' ) ) {
				do_action( 'cuecard_bridge_delivered', $envelope, $body, $headers, $result );
			}
			return $result;
		}

		private static function guard( $callback ) {
			try {
				$callback();
			} catch ( \Throwable $error ) {
				error_log( 'cuecard bridge: ' . $error->getMessage() );
			}
		}

		private static function enqueue( array $envelope ) {
			self::$pending[] = $envelope;
			if ( function_exists( 'did_action' ) && did_action( 'shutdown' ) ) {
				self::flush();
			}
		}

		private static function base( $type ) {
			return array(
				'schema'     => self::SCHEMA,
				'event_id'   => self::uuid4(),
				'seq'        => self::next_seq(),
				'emitted_at' => gmdate( 'Y-m-d\TH:i:s\Z' ),
				'site'       => array(
					'home_url' => self::home_url(),
					'blog_id'  => function_exists( 'get_current_blog_id' ) ? (int) get_current_blog_id() : 1,
				),
				'type'       => $type,
			);
		}

		private static function scope( $scope ) {
			$get = function ( $key, $fallback ) use ( $scope ) {
				if ( is_object( $scope ) && isset( $scope->$key ) ) {
					return $scope->$key;
				}
				if ( is_array( $scope ) && array_key_exists( $key, $scope ) ) {
					return $scope[ $key ];
				}
				return $fallback;
			};
			$out = array(
				'layer'          => (string) $get( 'layer', 'agent' ),
				'workspace_type' => (string) $get( 'workspace_type', 'site' ),
				'workspace_id'   => (string) $get( 'workspace_id', self::home_url() ),
				'user_id'        => (int) $get( 'user_id', 0 ),
				'agent_id'       => (int) $get( 'agent_id', 0 ),
				'filename'       => (string) $get( 'filename', '' ),
			);
			$out['agent_slug'] = self::agent_slug( $out );
			if ( is_object( $scope ) && method_exists( $scope, 'key' ) ) {
				$out['key'] = (string) $scope->key();
			} else {
				$out['key'] = implode( ':', array( $out['layer'], $out['workspace_type'], $out['workspace_id'], $out['user_id'], $out['agent_id'], $out['filename'] ) );
			}
			return $out;
		}

		private static function agent_slug( array $scope ) {
			$settings = self::settings();
			$slugs    = is_array( $settings['agent_slugs'] ) ? $settings['agent_slugs'] : array();
			$key      = (string) $scope['agent_id'];
			$slug     = isset( $slugs[ $key ] ) ? $slugs[ $key ] : null;
			if ( null === $slug && 0 === $scope['agent_id'] ) {
				$slug = $settings['agent_slug'];
			}
			if ( function_exists( 'apply_filters' ) ) {
				$slug = apply_filters( 'cuecard_bridge_agent_slug', $slug, $scope );
			}
			return ( is_string( $slug ) && '' !== $slug ) ? $slug : null;
		}

		private static function content( $bytes ) {
			$utf8 = ( '' === $bytes || 1 === preg_match( '//u', $bytes ) );
			return array(
				'content'          => $utf8 ? $bytes : base64_encode( $bytes ),
				'content_encoding' => $utf8 ? 'utf-8' : 'base64',
				'hash'             => sha1( $bytes ),
				'bytes'            => strlen( $bytes ),
			);
		}

		private static function scalars( $value ) {
			if ( is_scalar( $value ) || null === $value ) {
				return $value;
			}
			return is_array( $value ) ? array_filter( $value, 'is_scalar' ) : null;
		}

		private static function encode( array $envelope ) {
			return json_encode( $envelope, JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE | JSON_INVALID_UTF8_SUBSTITUTE );
		}

		private static function home_url() {
			$url = function_exists( 'home_url' ) ? (string) home_url( '/' ) : 'http://localhost';
			return rtrim( $url, '/' );
		}

		private static function uuid4() {
			if ( function_exists( 'wp_generate_uuid4' ) ) {
				return wp_generate_uuid4();
			}
			$bytes    = random_bytes( 16 );
			$bytes[6] = chr( ( ord( $bytes[6] ) & 0x0f ) | 0x40 );
			$bytes[8] = chr( ( ord( $bytes[8] ) & 0x3f ) | 0x80 );
			return vsprintf( '%s%s-%s-%s-%s-%s%s%s', str_split( bin2hex( $bytes ), 4 ) );
		}

		/** Per-site monotonic sequence: option increment under an flock (one host's PHP workers). */
		private static function next_seq() {
			$lock   = rtrim( sys_get_temp_dir(), '/' ) . '/cuecard-bridge-' . md5( self::home_url() ) . '.lock';
			$handle = @fopen( $lock, 'c' );
			if ( $handle ) {
				flock( $handle, LOCK_EX );
			}
			try {
				if ( function_exists( 'wp_cache_delete' ) ) {
					wp_cache_delete( self::SEQ_OPTION, 'options' );
				}
				$seq = (int) get_option( self::SEQ_OPTION, 0 ) + 1;
				update_option( self::SEQ_OPTION, $seq, false );
			} finally {
				if ( $handle ) {
					flock( $handle, LOCK_UN );
					fclose( $handle );
				}
			}
			return $seq;
		}

		private static function post( $url, array $headers, $body, $timeout, $blocking ) {
			if ( function_exists( 'wp_remote_post' ) ) {
				$response = wp_remote_post(
					$url,
					array(
						'body'        => $body,
						'headers'     => $headers,
						'timeout'     => $timeout,
						'blocking'    => $blocking,
						'redirection' => 0,
						'data_format' => 'body',
					)
				);
				if ( function_exists( 'is_wp_error' ) && is_wp_error( $response ) ) {
					return array( 'ok' => false, 'status' => 0, 'error' => $response->get_error_message(), 'transport' => 'wp_remote_post' );
				}
				$status = function_exists( 'wp_remote_retrieve_response_code' ) ? (int) wp_remote_retrieve_response_code( $response ) : 0;
				return array( 'ok' => ! $blocking || ( $status >= 200 && $status < 300 ), 'status' => $status, 'transport' => 'wp_remote_post' );
			}
			$lines = array( 'Connection: close' );
			foreach ( $headers as $name => $value ) {
				$lines[] = $name . ': ' . $value;
			}
			if ( function_exists( 'curl_init' ) ) {
				$curl = curl_init( $url );
				curl_setopt_array(
					$curl,
					array(
						CURLOPT_POST           => true,
						CURLOPT_POSTFIELDS     => $body,
						CURLOPT_HTTPHEADER     => $lines,
						CURLOPT_RETURNTRANSFER => true,
						CURLOPT_TIMEOUT_MS     => (int) ( $timeout * 1000 ),
						CURLOPT_FOLLOWLOCATION => false,
					)
				);
				$ok     = curl_exec( $curl );
				$status = (int) curl_getinfo( $curl, CURLINFO_RESPONSE_CODE );
				$error  = curl_error( $curl );
				curl_close( $curl );
				return array( 'ok' => false !== $ok && $status >= 200 && $status < 300, 'status' => $status, 'error' => $error, 'transport' => 'curl' );
			}
			$context = stream_context_create(
				array(
					'http' => array(
						'method'          => 'POST',
						'header'          => implode( "\r\n", $lines ),
						'content'         => $body,
						'timeout'         => $timeout,
						'ignore_errors'   => true,
						'follow_location' => 0,
					),
				)
			);
			$answer = @file_get_contents( $url, false, $context );
			$status = 0;
			if ( isset( $http_response_header[0] ) && preg_match( '#^HTTP/\S+\s+(\d{3})#', $http_response_header[0], $match ) ) {
				$status = (int) $match[1];
			}
			$result = array( 'ok' => $status >= 200 && $status < 300, 'status' => $status, 'transport' => 'stream' );
			if ( false === $answer ) {
				$result['error'] = 'connection failed';
			}
			return $result;
		}
	}

	Cuecard_Bridge::boot();
}
