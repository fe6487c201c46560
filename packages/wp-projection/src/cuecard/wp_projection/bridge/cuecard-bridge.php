<?php
/**
 * Plugin Name: cuecard Data Machine bridge
 * Description: Forwards Data Machine agent memory and guideline events, signed, to a cuecard receiver (one-way). A memory write only queues its envelope (WordPress options); Action Scheduler, or WP-Cron without it, delivers the queue after the request (with the blocking setting, the request itself does when it ends, after its response is sent where PHP allows), in order, retrying with backoff until the receiver acknowledges. Every refused or undelivered envelope is logged with error_log.
 * Version: 0.3.0
 * License: MIT
 *
 * Settings (first found wins): the constants CUECARD_BRIDGE_ENDPOINT and CUECARD_BRIDGE_SECRET;
 * the file named by the constant CUECARD_BRIDGE_SETTINGS_FILE, else cuecard-bridge/settings.php
 * beside this file (a folder WordPress does not load by itself; written by `cuecard wp bridge`,
 * readable only by the web server's user); the option `cuecard_bridge_settings`.
 * Keys: endpoint, secret, timeout, agent_slugs (agent id => slug, only where Data Machine's agent
 * lookup is missing), agent_slug (the last-resort slug of the default agent of a site with one
 * user, only where Data Machine cannot be asked at all), blocking (each request that queued an
 * envelope also delivers the queue when it ends, after its response is sent where PHP allows).
 * Envelope schema: dm-memory-projection/v1.
 */

if ( ! defined( 'ABSPATH' ) ) {
	return;
}

if ( ! class_exists( 'Cuecard_Bridge' ) ) {

	final class Cuecard_Bridge {
		const SCHEMA         = 'dm-memory-projection/v1';
		const HOOK           = 'cuecard_bridge_deliver';
		const GROUP          = 'cuecard-bridge';
		const QUEUE_OPTION   = 'cuecard_bridge_queue';
		const ITEM_PREFIX    = 'cuecard_bridge_q_';
		const MAX_BODY       = 1000000;
		const MAX_READ       = 4000000;
		const BACKOFF_FIRST  = 5;
		const BACKOFF_MAX    = 300;
		const RUN_SECONDS    = 20;
		const RUN_ENVELOPES  = 500;
		const STALE_SECONDS  = 600;
		const SLUG_PATTERN   = '/^[a-z0-9][a-z0-9-]*$/';
		const MAX_SEGMENT    = 246;
		const MAX_PATH       = 1024;
		const FILENAME_PATTERN = '(contexts/)?[A-Za-z0-9][A-Za-z0-9._-]*\\.md|daily/[0-9]{4}/[0-9]{2}/[0-9]{2}\\.md';
		const MAX_ATTEMPTS   = 5;
		const KEEP_REFUSED   = 50;
		const REFUSED_OPTION = 'cuecard_bridge_refused';
		const RECEIVER_STATUSES = array( 401, 403, 404, 405, 408, 415, 421, 429, 502, 503, 504 );
		const CONFIG_NAMES   = array( 'head', 'config', 'objects', 'refs', 'packed-refs', 'index', 'hooks', 'info', 'logs', 'worktrees', 'modules', 'commondir', 'gitdir', 'fetch_head', 'orig_head', 'description', 'branches', 'shallow' );
		const DIRECTORY_MGR  = '\\DataMachine\\Core\\FilesRepository\\DirectoryManager';
		const AGENTS_REPO    = '\\DataMachine\\Core\\Database\\Agents\\Agents';

		/** @var array|null */
		private static $settings = null;
		/** @var bool */
		private static $warned = false;
		/** @var bool */
		private static $deliver_at_end = false;
		/** @var int|null|false */
		private static $sole_user = false;

		public static function boot() {
			add_action( 'datamachine_agent_memory_updated', array( __CLASS__, 'on_memory_updated' ), 10, 3 );
			add_action( 'datamachine_agent_memory_deleted', array( __CLASS__, 'on_memory_deleted' ), 10, 1 );
			add_action( 'datamachine_guideline_updated', array( __CLASS__, 'on_guideline_updated' ), 10, 2 );
			add_action( 'datamachine_composable_regenerated', array( __CLASS__, 'on_composable_regenerated' ), 10, 3 );
			add_action( self::HOOK, array( __CLASS__, 'run_queue' ), 10, 0 );
			add_action( 'rest_api_init', array( __CLASS__, 'register_routes' ), 10, 0 );
		}

		/** Where `cuecard wp bridge` writes the settings: outside what WordPress loads itself. */
		public static function settings_file() {
			if ( defined( 'CUECARD_BRIDGE_SETTINGS_FILE' ) ) {
				return (string) CUECARD_BRIDGE_SETTINGS_FILE;
			}
			return __DIR__ . '/cuecard-bridge/settings.php';
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
				$file   = self::settings_file();
				$folder = dirname( $file );
				if ( is_file( $file ) && is_readable( $file ) ) {
					$loaded = include $file;
					if ( is_array( $loaded ) ) {
						$settings = array_merge( $settings, $loaded );
					}
				} elseif ( file_exists( $file ) || ( is_dir( $folder ) && ! is_executable( $folder ) ) ) {
					self::warn( 'cannot read the settings file ' . $file . ' as ' . self::process_user() . '; make it readable by the web server\'s user only (cuecard wp bridge --owner USER)' );
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
						'timeout'     => 5,
						'agent_slugs' => array(),
						'agent_slug'  => null,
						'blocking'    => false,
					),
					$settings
				);
			}
			return self::$settings;
		}

		// -- Data Machine's actions: build an envelope and queue it ------------------------------

		/** Data Machine: ( WP_Agent_Memory_Scope $scope, string $content, array $metadata ). */
		public static function on_memory_updated( $scope, $content = '', $metadata = array() ) {
			self::guard(
				function () use ( $scope, $content, $metadata ) {
					$fields = self::scope( $scope );
					if ( null === $fields ) {
						return;
					}
					$envelope             = self::base( 'memory.updated' );
					$envelope['scope']    = $fields;
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
					$fields = self::scope( $scope );
					if ( null === $fields ) {
						return;
					}
					$envelope          = self::base( 'memory.deleted' );
					$envelope['scope'] = $fields;
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
					$filename = (string) $filename;
					$fields   = self::scope(
						array(
							'layer'    => ( 'NETWORK.md' === $filename ) ? 'network' : 'shared',
							'filename' => $filename,
							'user_id'  => 0,
							'agent_id' => 0,
						)
					);
					if ( null === $fields ) {
						return;
					}
					$envelope          = self::base( 'composable.regenerated' );
					$envelope['scope'] = $fields;
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

		/**
		 * Why a filename may not leave WordPress, or null. The same rule as the receiver's (its
		 * FILENAME_PATTERN is this pattern, byte for byte), an allowlist: a Markdown file at the top
		 * of its layer's folder (NAME.md), in the legacy contexts/ folder, or a daily file
		 * daily/YYYY/MM/DD.md, NAME starting with a letter or a digit; no segment a name git, a shell
		 * or an editor reads as configuration (a dotfile, HEAD, config, objects, refs, index, hooks,
		 * `.git` in any case with dots or spaces after it, its 8.3 name GIT~1), nor a Windows device
		 * name; each segment at most MAX_SEGMENT bytes, which leaves room for `<name>.incoming`.
		 */
		public static function refused_filename( $filename ) {
			$filename = (string) $filename;
			foreach ( preg_split( '#[/\\\\]#', $filename ) as $segment ) {
				$name = strtolower( rtrim( $segment, '. ' ) );
				if ( '.git' === $name || 'git~1' === $name ) {
					return 'segment ' . $segment . ' is git repository metadata';
				}
			}
			if ( strlen( $filename ) > self::MAX_PATH ) {
				return 'it is longer than ' . self::MAX_PATH . ' bytes';
			}
			if ( 1 !== preg_match( '#\\A(?:' . self::FILENAME_PATTERN . ')\\z#', $filename ) ) {
				return 'it is not a name Data Machine\'s layouts define (allowlist: NAME.md, contexts/NAME.md, daily/YYYY/MM/DD.md; NAME starts with a letter or digit)';
			}
			foreach ( explode( '/', $filename ) as $segment ) {
				if ( strlen( $segment ) > self::MAX_SEGMENT ) {
					return 'segment ' . substr( $segment, 0, 40 ) . '... is longer than ' . self::MAX_SEGMENT . ' bytes, the room left for the names derived from it (.incoming)';
				}
				if ( in_array( strtolower( rtrim( $segment, '. ' ) ), self::CONFIG_NAMES, true ) ) {
					return 'segment ' . $segment . ' is a name git or a shell reads as configuration';
				}
				if ( 1 === preg_match( '/^(con|prn|aux|nul|com[1-9]|lpt[1-9])(\\..*)?$/i', $segment ) ) {
					return 'segment ' . $segment . ' is a Windows device name';
				}
			}
			return null;
		}

		/**
		 * The agent whose folder an agent or principal scope names, asked of Data Machine itself:
		 * its DirectoryManager (the resolution its disk store writes by: agent id, else the user's
		 * own agent, agent id 0 meaning the user's default agent), else its agents repository,
		 * else the `--agent ID=SLUG` map for explicit ids. Only when Data Machine cannot be asked at
		 * all (neither exists), the default agent (id 0) of the site's one user takes the
		 * `--agent-slug` fallback; with several users it is never used (see fallback_agent_slug).
		 * The filter `cuecard_bridge_agent_slug` may change the answer. Null when nothing answers
		 * with a valid slug.
		 */
		public static function resolve_agent_slug( array $scope ) {
			$slug     = null;
			$agent_id = (int) $scope['agent_id'];
			$user_id  = (int) $scope['user_id'];
			$manager  = self::DIRECTORY_MGR;
			$repo     = self::AGENTS_REPO;
			$can_ask  = ( class_exists( $manager ) && method_exists( $manager, 'resolve_agent_slug' ) ) || class_exists( $repo );
			if ( class_exists( $manager ) && method_exists( $manager, 'resolve_agent_slug' ) ) {
				$slug = ( new $manager() )->resolve_agent_slug( array( 'agent_id' => $agent_id, 'user_id' => $user_id ) );
			} elseif ( class_exists( $repo ) ) {
				$agents = new $repo();
				$row    = null;
				if ( $agent_id > 0 && method_exists( $agents, 'get_agent' ) ) {
					$row = $agents->get_agent( $agent_id );
				} elseif ( $user_id > 0 && method_exists( $agents, 'get_by_owner_id' ) ) {
					$row = $agents->get_by_owner_id( $user_id );
				}
				if ( is_array( $row ) && ! empty( $row['agent_slug'] ) ) {
					$slug = (string) $row['agent_slug'];
				}
			}
			if ( null === $slug && $agent_id > 0 ) {
				$settings = self::settings();
				$slugs    = is_array( $settings['agent_slugs'] ) ? $settings['agent_slugs'] : array();
				if ( isset( $slugs[ (string) $agent_id ] ) ) {
					$slug = $slugs[ (string) $agent_id ];
				}
			}
			if ( null === $slug && 0 === $agent_id && ! $can_ask ) {
				$slug = self::fallback_agent_slug( $user_id );
			}
			if ( function_exists( 'apply_filters' ) ) {
				$slug = apply_filters( 'cuecard_bridge_agent_slug', $slug, $scope );
			}
			return self::valid_folder( $slug ) ? $slug : null;
		}

		/**
		 * The folder Data Machine's own disk store keeps an agent's files in: the last segment of
		 * DirectoryManager::resolve_agent_directory() (its slug, with the suffix Data Machine adds
		 * so that two agents of one slug never share a folder). Null where Data Machine has no
		 * such method or answers a name the receiver would refuse (the slug then names it).
		 */
		public static function resolve_agent_dir( array $scope ) {
			$manager = self::DIRECTORY_MGR;
			if ( ! class_exists( $manager ) || ! method_exists( $manager, 'resolve_agent_directory' ) ) {
				return null;
			}
			$path   = ( new $manager() )->resolve_agent_directory( array( 'agent_id' => (int) $scope['agent_id'], 'user_id' => (int) $scope['user_id'] ) );
			$folder = is_string( $path ) ? basename( rtrim( $path, '/' ) ) : null;
			return self::valid_folder( $folder ) ? $folder : null;
		}

		/**
		 * Every agent Data Machine has, with the folder its disk store keeps the agent's files in:
		 * [{agent_id, agent_slug, owner_id, agent_dir}]. The receiver's `cuecard wp sync` compares
		 * it with the folders it projected, so a renamed or deleted agent leaves no stale copy.
		 */
		public static function agents() {
			$repo    = self::AGENTS_REPO;
			$manager = self::DIRECTORY_MGR;
			if ( ! class_exists( $repo ) || ! method_exists( $repo, 'get_all' ) ) {
				return null;
			}
			$out  = array();
			$seen = array();
			foreach ( ( new $repo() )->get_all() as $row ) {
				$scope = array( 'agent_id' => (int) $row['agent_id'], 'user_id' => (int) $row['owner_id'] );
				$dir   = self::resolve_agent_dir( $scope );
				$out[] = array(
					'agent_id'   => (int) $row['agent_id'],
					'agent_slug' => (string) $row['agent_slug'],
					'owner_id'   => (int) $row['owner_id'],
					'agent_dir'  => null !== $dir ? $dir : (string) $row['agent_slug'],
				);
				$seen[ end( $out )['agent_dir'] ] = true;
			}
			// A user without an agent row still has a default agent folder (Data Machine names it
			// after the login): it is no stale folder either.
			if ( function_exists( 'get_users' ) ) {
				foreach ( (array) get_users( array( 'number' => 500, 'fields' => 'ID', 'orderby' => 'ID' ) ) as $user_id ) {
					$dir = self::resolve_agent_dir( array( 'agent_id' => 0, 'user_id' => (int) $user_id ) );
					if ( null !== $dir && ! isset( $seen[ $dir ] ) ) {
						$seen[ $dir ] = true;
						$out[]        = array( 'agent_id' => 0, 'agent_slug' => $dir, 'owner_id' => (int) $user_id, 'agent_dir' => $dir );
					}
				}
			}
			return $out;
		}

		/** `rest_api_init`: GET /wp-json/cuecard-bridge/v1/state, signed with the shared secret. */
		public static function register_routes() {
			if ( ! function_exists( 'register_rest_route' ) ) {
				return;
			}
			register_rest_route(
				'cuecard-bridge/v1',
				'/state',
				array(
					'methods'             => 'GET',
					'callback'            => array( __CLASS__, 'state_route' ),
					'permission_callback' => array( __CLASS__, 'signed_request' ),
				)
			);
		}

		/**
		 * Whether a request carries the receiver's signature: X-Cuecard-Timestamp within 300 s and
		 * X-Cuecard-Signature `sha256=<HMAC-SHA256 of "<timestamp>.">` with the shared secret
		 * (compared in constant time).
		 */
		public static function signed_request( $request ) {
			$settings  = self::settings();
			$secret    = (string) $settings['secret'];
			$timestamp = (string) $request->get_header( 'x_cuecard_timestamp' );
			$signature = (string) $request->get_header( 'x_cuecard_signature' );
			if ( strlen( $secret ) < 16 || ! ctype_digit( $timestamp ) || abs( time() - (int) $timestamp ) > 300 ) {
				return false;
			}
			return hash_equals( 'sha256=' . hash_hmac( 'sha256', $timestamp . '.', $secret ), $signature );
		}

		/** The queue's summary and Data Machine's agents, for the receiver (read only). */
		public static function state_route( $request = null ) {
			return array(
				'schema'   => 'cuecard-bridge-state/v1',
				'home_url' => self::home_url(),
				'at'       => gmdate( 'Y-m-d\TH:i:s\Z' ),
				'queue'    => self::summary(),
				'agents'   => self::agents(),
			);
		}

		/** An agent slug or folder name the receiver takes: the slug alphabet, not a name git reads. */
		public static function valid_folder( $name ) {
			return is_string( $name ) && 1 === preg_match( self::SLUG_PATTERN, $name ) && strlen( $name ) <= self::MAX_SEGMENT
				&& ! in_array( $name, self::CONFIG_NAMES, true );
		}

		/**
		 * The `--agent-slug` fallback for a default-agent scope of $user_id, asked only when Data
		 * Machine cannot be asked: the slug when the site has exactly one user and the scope is
		 * theirs (user id 0 is Data Machine's default agent user, on such a site that one user);
		 * null otherwise, so a second user's files never land in the first user's folder.
		 */
		public static function fallback_agent_slug( $user_id ) {
			$settings = self::settings();
			$fallback = $settings['agent_slug'];
			if ( ! is_string( $fallback ) || '' === $fallback ) {
				return null;
			}
			$sole = self::sole_user_id();
			if ( null === $sole || ( 0 !== (int) $user_id && $sole !== (int) $user_id ) ) {
				return null;
			}
			return $fallback;
		}

		/** The id of the site's only user; null when it has several (or none, or cannot tell). */
		private static function sole_user_id() {
			if ( false === self::$sole_user ) {
				self::$sole_user = null;
				if ( function_exists( 'get_users' ) ) {
					$ids = get_users( array( 'number' => 2, 'fields' => 'ID', 'orderby' => 'ID' ) );
					if ( is_array( $ids ) && 1 === count( $ids ) ) {
						self::$sole_user = (int) reset( $ids );
					}
				}
			}
			return self::$sole_user;
		}

		/** Why a default-agent scope got no slug, when the `--agent-slug` fallback was declined. */
		private static function fallback_declined( array $scope ) {
			$settings = self::settings();
			if ( 0 !== (int) $scope['agent_id'] || ! is_string( $settings['agent_slug'] ) || '' === $settings['agent_slug'] ) {
				return '';
			}
			$manager = self::DIRECTORY_MGR;
			if ( ( class_exists( $manager ) && method_exists( $manager, 'resolve_agent_slug' ) ) || class_exists( self::AGENTS_REPO ) ) {
				return '';
			}
			$sole = self::sole_user_id();
			if ( null === $sole ) {
				$why = function_exists( 'get_users' ) ? 'this site has several users' : 'WordPress could not count the site\'s users';
			} else {
				$why = 'user ' . (int) $scope['user_id'] . ' is not the site\'s one user';
			}
			return ' (the --agent-slug fallback serves only a site with exactly one user; ' . $why . ')';
		}

		// -- the queue: WordPress options, one per envelope, and an ordered index ----------------

		/**
		 * Queues an envelope durably. A queued envelope of the same path that was never sent is
		 * replaced (the newer state wins), so a burst of writes to one file sends one envelope.
		 * Delivery is left to Action Scheduler or WP-Cron: nothing is sent from this request.
		 */
		private static function enqueue( array $envelope ) {
			$key    = self::identity( $envelope );
			$at_end = self::arrange_delivery_at_end();
			self::locked_transaction(
				function () use ( $envelope, $key, $at_end ) {
					$state = self::state();
					foreach ( $state['entries'] as $entry ) {
						if ( $entry['key'] === $key && null === $entry['seq'] ) {
							// Coalesce: the queued, never-sent envelope of this path takes the new
							// state in place (one write); its run is already arranged.
							update_option( self::ITEM_PREFIX . $entry['id'], $envelope, false );
							return;
						}
					}
					$state['next_id'] = (int) $state['next_id'] + 1;
					$id               = $state['next_id'];
					add_option( self::ITEM_PREFIX . $id, $envelope, '', false );
					$state['entries'][] = array(
						'id'       => $id,
						'key'      => $key,
						'seq'      => null,
						'attempts' => 0,
						'at'       => time(),
					);
					$running = $state['running'] > time() - self::STALE_SECONDS;
					if ( ! $at_end && ! $running && ! self::pending( $state ) ) {
						// The runner, when it finishes, schedules itself again if anything is left.
						// With delivery at the request's end, that run schedules what it leaves.
						$state['scheduled'] = self::schedule( 0 ) ? time() : 0;
					}
					self::save( null, $state );
				}
			);
		}

		/**
		 * With the `blocking` setting (`cuecard wp bridge --blocking`): this request delivers the
		 * queue itself when it ends, instead of leaving it to the scheduler's next run. Whether
		 * that is arranged.
		 */
		private static function arrange_delivery_at_end() {
			if ( ! self::$deliver_at_end ) {
				$settings = self::settings();
				if ( empty( $settings['blocking'] ) || ! function_exists( 'add_action' ) ) {
					return false;
				}
				self::$deliver_at_end = true;
				add_action( 'shutdown', array( __CLASS__, 'deliver_at_end' ), 1000, 0 );
			}
			return true;
		}

		/**
		 * `shutdown`, late: hands the response to the client first where the server allows
		 * (PHP-FPM's fastcgi_finish_request, LiteSpeed's litespeed_finish_request; elsewhere the
		 * client waits, as it did for --blocking before the queue), then runs the queue once,
		 * within about the delivery timeout; what it leaves (a failure, the budget spent) it hands
		 * to the scheduler as any run does. Once the receiver has failed (the head was tried and
		 * not acknowledged), requests stand aside and the scheduler's backoff retries alone, so a
		 * receiver that is down or hung costs one request, not every one.
		 */
		public static function deliver_at_end() {
			$queue = self::queue();
			if ( ! $queue ) {
				return;
			}
			$head = reset( $queue );
			if ( (int) $head['attempts'] > 0 ) {
				self::locked(
					function () {
						$state = self::state();
						$idle  = $state['running'] <= time() - self::STALE_SECONDS;
						if ( $state['entries'] && $idle && ! self::pending( $state ) ) {
							$state['scheduled'] = self::schedule( 0 ) ? time() : 0;
							self::save( null, $state );
						}
					}
				);
				return;
			}
			if ( function_exists( 'fastcgi_finish_request' ) ) {
				fastcgi_finish_request();
			} elseif ( function_exists( 'litespeed_finish_request' ) ) {
				litespeed_finish_request();
			}
			$settings = self::settings();
			self::run_queue( max( 1.0, (float) $settings['timeout'] ) );
		}

		/**
		 * The scheduled job: sends the queue head by head, in order, until it is empty, the
		 * receiver fails (then it backs off), or this run's budget is spent ($seconds, default
		 * RUN_SECONDS: no new envelope is sent after it).
		 */
		public static function run_queue( $seconds = self::RUN_SECONDS ) {
			$claimed = self::locked(
				function () {
					$state = self::state();
					if ( $state['running'] > time() - self::STALE_SECONDS ) {
						return false;
					}
					$state['running']   = time();
					$state['scheduled'] = 0;
					self::save( null, $state );
					return true;
				}
			);
			if ( ! $claimed ) {
				return;
			}
			$delay    = 0;
			$deadline = microtime( true ) + (float) $seconds;
			try {
				for ( $sent = 0; $sent < self::RUN_ENVELOPES && microtime( true ) < $deadline; ++$sent ) {
					$head = self::locked( array( __CLASS__, 'claim_head' ) );
					if ( null === $head ) {
						break;
					}
					$result = self::send( $head['entry'], $head['envelope'] );
					$delay  = self::locked(
						function () use ( $head, $result ) {
							return Cuecard_Bridge::settle( $head['entry'], $head['envelope'], $result );
						}
					);
					if ( $delay > 0 ) {
						break;
					}
				}
			} finally {
				self::locked(
					function () use ( $delay ) {
						$state            = self::state();
						$state['running'] = 0;
						if ( $state['entries'] ) {
							$state['scheduled'] = self::schedule( $delay ) ? time() : 0;
						}
						self::save( null, $state );
					}
				);
			}
		}

		/** The queue head with its envelope; gives it the next sequence number when first sent. */
		public static function claim_head() {
			$queue = self::queue();
			while ( $queue ) {
				$entry    = reset( $queue );
				$envelope = self::fresh_option( self::ITEM_PREFIX . $entry['id'] );
				if ( is_array( $envelope ) ) {
					break;
				}
				error_log( 'cuecard bridge: queued envelope #' . $entry['id'] . ' lost its body; dropped' );
				array_shift( $queue );
				self::save( $queue, null );
				$entry = null;
			}
			if ( empty( $entry ) ) {
				return null;
			}
			if ( null === $entry['seq'] ) {
				$state        = self::state();
				$state['seq'] = (int) $state['seq'] + 1;
				$entry['seq'] = $state['seq'];
				$queue[ key( $queue ) ] = $entry;
				self::save( $queue, $state );
			}
			return array( 'entry' => $entry, 'envelope' => $envelope );
		}

		/**
		 * What a send means for the queue. Acknowledged (2xx, or 409: the receiver already has it)
		 * leaves it. Refused for its content (400, 413, 422: the receiver will never take it) leaves
		 * it for the set-aside list. A failure of the receiver itself (no answer, a redirect, 401,
		 * 403, 404, 405, 408, 415, 421, 429, 502, 503, 504: every envelope would fail alike) keeps
		 * it at the head and backs off, for as long as it takes. Any other answer (a 500 for this
		 * envelope) counts against the envelope: after MAX_ATTEMPTS it is set aside like a refusal,
		 * so no envelope holds the ones behind it for longer than its backoff. Returns the backoff
		 * delay, 0 to go on.
		 */
		public static function settle( array $entry, array $envelope, array $result ) {
			$status   = (int) $result['status'];
			$what     = 'envelope ' . $envelope['event_id'] . ' (seq ' . $entry['seq'] . ', ' . self::label( $envelope ) . ')';
			$done     = $result['ok'] || 409 === $status;
			$refuse   = in_array( $status, array( 400, 413, 422 ), true );
			$receiver = $status < 400 || in_array( $status, self::RECEIVER_STATUSES, true );
			$queue    = self::queue();
			$index    = null;
			foreach ( $queue as $i => $queued ) {
				if ( $queued['id'] === $entry['id'] ) {
					$index = $i;
					break;
				}
			}
			$attempts = (int) $entry['attempts'] + 1;
			if ( ! $done && ! $refuse && ! $receiver && $attempts >= self::MAX_ATTEMPTS ) {
				$refuse = true;
			}
			if ( $done || $refuse ) {
				if ( $refuse ) {
					$tried = $attempts > 1 ? ' after ' . $attempts . ' attempts' : '';
					error_log( 'cuecard bridge: ' . $what . ' refused by the receiver (' . $status . ')' . $tried . ': ' . self::reason( $result ) . '; dropped, the queue goes on' );
					self::set_aside( $entry, $envelope, $status, self::reason( $result ), $attempts );
				}
				delete_option( self::ITEM_PREFIX . $entry['id'] );
				if ( null !== $index ) {
					unset( $queue[ $index ] );
				}
				self::save( $queue, null );
				return 0;
			}
			$delay = (int) min( self::BACKOFF_MAX, self::BACKOFF_FIRST * pow( 2, min( $attempts - 1, 16 ) ) );
			if ( null !== $index ) {
				$queue[ $index ]['attempts']   = $attempts;
				$queue[ $index ]['last_error'] = self::reason( $result );
				self::save( $queue, null );
			}
			$state = self::state();
			$state['last_error'] = array( 'at' => time(), 'event_id' => $envelope['event_id'], 'status' => $status, 'reason' => self::reason( $result ) );
			self::save( null, $state );
			$bound = $receiver ? '' : ' (' . ( self::MAX_ATTEMPTS - $attempts ) . ' more before it is set aside)';
			error_log( 'cuecard bridge: ' . $what . ' not delivered (attempt ' . $attempts . '): ' . self::reason( $result ) . '; ' . count( $queue ) . ' queued, next attempt in ' . $delay . ' s' . $bound );
			return $delay;
		}

		/** Keeps a refused or given-up envelope's record (not its body) in the set-aside list. */
		private static function set_aside( array $entry, array $envelope, $status, $reason, $attempts ) {
			$list   = self::fresh_option( self::REFUSED_OPTION, array() );
			$list   = is_array( $list ) ? $list : array();
			$list[] = array(
				'at'       => time(),
				'event_id' => $envelope['event_id'],
				'seq'      => $entry['seq'],
				'label'    => self::label( $envelope ),
				'status'   => (int) $status,
				'reason'   => substr( (string) $reason, 0, 300 ),
				'attempts' => (int) $attempts,
			);
			update_option( self::REFUSED_OPTION, array_slice( $list, -self::KEEP_REFUSED ), false );
		}

		/**
		 * The queue as the receiver's `cuecard wp status` shows it: how many envelopes wait, the
		 * oldest (when it was queued, what it is, its attempts), the last failed delivery, and the
		 * envelopes set aside (refused by the receiver, or given up after MAX_ATTEMPTS).
		 */
		public static function summary() {
			$state   = self::state();
			$entries = $state['entries'];
			$oldest  = null;
			if ( $entries ) {
				$head     = reset( $entries );
				$envelope = self::fresh_option( self::ITEM_PREFIX . $head['id'] );
				$oldest   = array(
					'queued_at' => isset( $head['at'] ) ? gmdate( 'Y-m-d\TH:i:s\Z', (int) $head['at'] ) : null,
					'label'     => is_array( $envelope ) ? self::label( $envelope ) : null,
					'attempts'  => (int) $head['attempts'],
					'last_error' => isset( $head['last_error'] ) ? $head['last_error'] : null,
				);
			}
			$last = isset( $state['last_error'] ) && is_array( $state['last_error'] ) ? $state['last_error'] : null;
			if ( null !== $last ) {
				$last['at'] = gmdate( 'Y-m-d\TH:i:s\Z', (int) $last['at'] );
			}
			$aside = self::fresh_option( self::REFUSED_OPTION, array() );
			return array(
				'waiting'    => count( $entries ),
				'oldest'     => $oldest,
				'last_error' => $last,
				'set_aside'  => is_array( $aside ) ? array_values( $aside ) : array(),
				'seq'        => (int) $state['seq'],
			);
		}

		/** The queued entries, oldest first, with what each is (for status pages and tests). */
		public static function queued() {
			$out = array();
			foreach ( self::queue() as $entry ) {
				$envelope = self::fresh_option( self::ITEM_PREFIX . $entry['id'] );
				if ( is_array( $envelope ) ) {
					$entry['event_id'] = $envelope['event_id'];
					$entry['label']    = self::label( $envelope );
				}
				$out[] = $entry;
			}
			return $out;
		}

		// -- scheduling: Action Scheduler when Data Machine ships it, else WP-Cron ---------------

		private static function schedule( $delay ) {
			$when = time() + (int) $delay;
			if ( function_exists( 'as_enqueue_async_action' ) && function_exists( 'as_schedule_single_action' ) ) {
				$id = ( $delay > 0 )
					? as_schedule_single_action( $when, self::HOOK, array(), self::GROUP )
					: as_enqueue_async_action( self::HOOK, array(), self::GROUP );
				return (bool) $id;
			}
			if ( function_exists( 'wp_schedule_single_event' ) ) {
				$next = function_exists( 'wp_next_scheduled' ) ? wp_next_scheduled( self::HOOK ) : false;
				if ( false !== $next && $next <= $when ) {
					return true; // an earlier run is already due; it takes this envelope too
				}
				if ( false !== $next && function_exists( 'wp_unschedule_event' ) ) {
					wp_unschedule_event( $next, self::HOOK );
				}
				return true === wp_schedule_single_event( $when, self::HOOK, array(), true ) || false !== wp_next_scheduled( self::HOOK );
			}
			error_log( 'cuecard bridge: neither Action Scheduler nor WP-Cron is available; the queue waits' );
			return false;
		}

		/** Whether a run we scheduled is still pending (the scheduler is asked when in doubt). */
		private static function pending( array $state ) {
			if ( ! $state['scheduled'] ) {
				return false;
			}
			if ( function_exists( 'as_has_scheduled_action' ) ) {
				return (bool) as_has_scheduled_action( self::HOOK, null, self::GROUP );
			}
			if ( function_exists( 'wp_next_scheduled' ) ) {
				return false !== wp_next_scheduled( self::HOOK );
			}
			return $state['scheduled'] > time() - self::STALE_SECONDS;
		}

		// -- sending -----------------------------------------------------------------------------

		/** Signs and posts one queued envelope, waiting for the answer (off the request path). */
		private static function send( array $entry, array $envelope ) {
			$settings        = self::settings();
			$envelope['seq'] = (int) $entry['seq'];
			$result          = array( 'ok' => false, 'status' => 0 );
			$body            = false;
			$headers         = array();
			if ( '' === (string) $settings['endpoint'] || '' === (string) $settings['secret'] ) {
				$result['error'] = 'endpoint or secret not configured (' . self::settings_file() . ')';
			} else {
				$body = self::encode( $envelope );
				if ( false !== $body && strlen( $body ) > self::MAX_BODY && isset( $envelope['content'] ) ) {
					unset( $envelope['content'], $envelope['content_encoding'] );
					$metadata                            = isset( $envelope['metadata'] ) ? (array) $envelope['metadata'] : array();
					$metadata['cuecard_content_omitted'] = 'larger than the receiver accepts';
					$envelope['metadata']                = $metadata;
					$body                                = self::encode( $envelope );
				}
				if ( false === $body ) {
					$result = array( 'ok' => false, 'status' => 400, 'error' => 'envelope could not be encoded' );
				} else {
					$timestamp = (string) time();
					$headers   = array(
						'Content-Type'        => 'application/json',
						'X-Cuecard-Timestamp' => $timestamp,
						'X-Cuecard-Signature' => 'sha256=' . hash_hmac( 'sha256', $timestamp . '.' . $body, (string) $settings['secret'] ),
					);
					try {
						$result = self::post( (string) $settings['endpoint'], $headers, $body, (float) $settings['timeout'] );
					} catch ( \Throwable $error ) {
						$result = array( 'ok' => false, 'status' => 0, 'error' => $error->getMessage() );
					}
				}
			}
			if ( function_exists( 'do_action' ) ) {
				do_action( 'cuecard_bridge_delivered', $envelope, $body, $headers, $result );
			}
			return $result;
		}

		private static function post( $url, array $headers, $body, $timeout ) {
			if ( function_exists( 'wp_remote_post' ) ) {
				$response = wp_remote_post(
					$url,
					array(
						'body'        => $body,
						'headers'     => $headers,
						'timeout'     => $timeout,
						'blocking'    => true,
						'redirection' => 0,
						'data_format' => 'body',
					)
				);
				if ( function_exists( 'is_wp_error' ) && is_wp_error( $response ) ) {
					return array( 'ok' => false, 'status' => 0, 'error' => $response->get_error_message(), 'transport' => 'wp_remote_post' );
				}
				$status = (int) wp_remote_retrieve_response_code( $response );
				$answer = function_exists( 'wp_remote_retrieve_body' ) ? (string) wp_remote_retrieve_body( $response ) : '';
				return array( 'ok' => $status >= 200 && $status < 300, 'status' => $status, 'body' => $answer, 'transport' => 'wp_remote_post' );
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
				$answer = curl_exec( $curl );
				$status = (int) curl_getinfo( $curl, CURLINFO_RESPONSE_CODE );
				$error  = curl_error( $curl );
				curl_close( $curl );
				return array( 'ok' => false !== $answer && $status >= 200 && $status < 300, 'status' => $status, 'body' => is_string( $answer ) ? $answer : '', 'error' => $error, 'transport' => 'curl' );
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
			$result = array( 'ok' => $status >= 200 && $status < 300, 'status' => $status, 'body' => is_string( $answer ) ? $answer : '', 'transport' => 'stream' );
			if ( false === $answer && 0 === $status ) {
				$result['error'] = 'connection failed or timed out';
			}
			return $result;
		}

		// -- helpers -----------------------------------------------------------------------------

		private static function guard( $callback ) {
			try {
				$callback();
			} catch ( \Throwable $error ) {
				error_log( 'cuecard bridge: ' . $error->getMessage() );
			}
		}

		private static function warn( $message ) {
			if ( ! self::$warned ) {
				self::$warned = true;
				error_log( 'cuecard bridge: ' . $message );
			}
		}

		private static function process_user() {
			if ( function_exists( 'posix_geteuid' ) && function_exists( 'posix_getpwuid' ) ) {
				$user = posix_getpwuid( posix_geteuid() );
				if ( is_array( $user ) ) {
					return 'user ' . $user['name'];
				}
			}
			return 'the web server\'s user';
		}

		/** The scope fields of an envelope, or null (logged) when it may not leave WordPress. */
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
			if ( is_object( $scope ) && method_exists( $scope, 'key' ) ) {
				$key = (string) $scope->key();
			} else {
				$key = implode( ':', array( $out['layer'], $out['workspace_type'], $out['workspace_id'], $out['user_id'], $out['agent_id'], $out['filename'] ) );
			}
			$what   = $out['layer'] . '-layer ' . $out['filename'] . ' of user ' . $out['user_id'] . ' (agent id ' . $out['agent_id'] . ')';
			$reason = self::refused_filename( $out['filename'] );
			if ( null !== $reason ) {
				error_log( 'cuecard bridge: event for ' . $out['filename'] . ' refused: ' . $reason . '; nothing sent' );
				return null;
			}
			$out['agent_slug'] = null;
			$out['agent_dir']  = null;
			if ( in_array( $out['layer'], array( 'agent', 'principal' ), true ) ) {
				$out['agent_dir']  = self::resolve_agent_dir( $out );
				$out['agent_slug'] = self::resolve_agent_slug( $out );
				if ( null === $out['agent_slug'] ) {
					error_log( 'cuecard bridge: event for the ' . $what . ' refused: Data Machine could not resolve its agent, and it is never sent under another agent\'s name' . self::fallback_declined( $out ) . '; nothing sent' );
					return null;
				}
			}
			$out['key'] = $key;
			return $out;
		}

		/** One path: queued envelopes with the same identity coalesce. */
		private static function identity( array $envelope ) {
			if ( ! isset( $envelope['scope'] ) ) {
				return $envelope['type'] . ':' . ( isset( $envelope['post_id'] ) ? $envelope['post_id'] : '' );
			}
			$s = $envelope['scope'];
			$folder = isset( $s['agent_dir'] ) ? (string) $s['agent_dir'] : (string) $s['agent_slug'];
			return implode( '|', array( $s['layer'], $s['user_id'], $folder, $s['filename'] ) );
		}

		private static function label( array $envelope ) {
			if ( ! isset( $envelope['scope'] ) ) {
				return $envelope['type'];
			}
			$s     = $envelope['scope'];
			$owner = $s['agent_slug'] ? ' of agent ' . $s['agent_slug'] : ( in_array( $s['layer'], array( 'user', 'principal' ), true ) ? ' of user ' . $s['user_id'] : '' );
			return $envelope['type'] . ' ' . $s['layer'] . '/' . $s['filename'] . $owner;
		}

		private static function reason( array $result ) {
			if ( ! empty( $result['body'] ) ) {
				$answer = json_decode( (string) $result['body'], true );
				if ( is_array( $answer ) && isset( $answer['error'] ) && is_string( $answer['error'] ) ) {
					return substr( $answer['error'], 0, 300 );
				}
			}
			if ( ! empty( $result['error'] ) ) {
				return (string) $result['error'];
			}
			return 'status ' . (int) $result['status'];
		}

		private static function base( $type ) {
			return array(
				'schema'     => self::SCHEMA,
				'event_id'   => self::uuid4(),
				'emitted_at' => gmdate( 'Y-m-d\TH:i:s\Z' ),
				'site'       => array(
					'home_url' => self::home_url(),
					'blog_id'  => function_exists( 'get_current_blog_id' ) ? (int) get_current_blog_id() : 1,
				),
				'type'       => $type,
			);
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

		private static function fresh_option( $name, $fallback = false ) {
			if ( function_exists( 'wp_cache_delete' ) ) {
				wp_cache_delete( $name, 'options' );
			}
			return get_option( $name, $fallback );
		}

		/** The queue's entries, oldest first (the bodies live in one option each). */
		private static function queue() {
			return self::state()['entries'];
		}

		/** One option holds the queue's index and state, so queueing an envelope writes it once. */
		private static function state() {
			$state = self::fresh_option( self::QUEUE_OPTION, array() );
			$state = array_merge(
				array( 'seq' => 0, 'next_id' => 0, 'running' => 0, 'scheduled' => 0, 'entries' => array() ),
				is_array( $state ) ? $state : array()
			);
			$state['entries'] = is_array( $state['entries'] ) ? array_values( $state['entries'] ) : array();
			return $state;
		}

		private static function save( $queue, $state ) {
			$state = ( null === $state ) ? self::state() : $state;
			if ( null !== $queue ) {
				$state['entries'] = array_values( $queue );
			}
			update_option( self::QUEUE_OPTION, $state, false );
		}

		/**
		 * Runs $callback holding the queue lock, inside one database transaction where WordPress's
		 * $wpdb allows one (InnoDB): queueing an envelope writes its option, the queue's index and
		 * maybe the scheduler's row, and on a durable database each autocommitted write waits for
		 * the disk; one commit waits once. Without $wpdb, or where it refuses, as locked().
		 */
		private static function locked_transaction( $callback ) {
			return self::locked(
				function () use ( $callback ) {
					global $wpdb;
					$db = ( isset( $wpdb ) && is_object( $wpdb ) && method_exists( $wpdb, 'query' ) ) ? $wpdb : null;
					if ( null === $db || false === $db->query( 'START TRANSACTION' ) ) {
						return $callback();
					}
					try {
						$result = $callback();
					} catch ( \Throwable $error ) {
						$db->query( 'ROLLBACK' );
						throw $error;
					}
					$db->query( 'COMMIT' );
					return $result;
				}
			);
		}

		/**
		 * Runs $callback holding this site's queue lock: an flock shared by the PHP workers of
		 * one host, so the index, the sequence and the runner's claim change one at a time.
		 */
		private static function locked( $callback ) {
			$owner  = function_exists( 'posix_geteuid' ) ? (string) posix_geteuid() : '';
			$lock   = rtrim( sys_get_temp_dir(), '/' ) . '/cuecard-bridge-' . md5( self::home_url() . '|' . $owner ) . '.lock';
			$handle = @fopen( $lock, 'c' );
			if ( $handle ) {
				flock( $handle, LOCK_EX );
			}
			try {
				return $callback();
			} finally {
				if ( $handle ) {
					flock( $handle, LOCK_UN );
					fclose( $handle );
				}
			}
		}
	}

	Cuecard_Bridge::boot();
}
