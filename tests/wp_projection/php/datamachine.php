<?php
/**
 * A model of the parts of Data Machine the bridge asks about its agents, written for these tests
 * from Data Machine's documented behaviour (not its code):
 *
 * - the agents repository `DataMachine\Core\Database\Agents\Agents`: rows {agent_id, agent_slug,
 *   owner_id}; `get_agent( id )` and `get_by_owner_id( user id )` return the row or null;
 * - `DataMachine\Core\FilesRepository\DirectoryManager::resolve_agent_slug( context )`, the
 *   resolution its disk store writes agent files by: an explicit slug; else agent id > 0 looked
 *   up in the repository; else the effective user's own agent (user id 0 meaning the default
 *   agent user: the first administrator), then that user's login, then `user-<id>`;
 * - `DirectoryManager::resolve_agent_directory( context )`: the agent's folder under
 *   `<uploads>/datamachine-files/agents/`, its slug, with `--` and 16 hex digits of a SHA-256
 *   appended for an agent of a non-default instance (row key `instance_key`), so two agents that
 *   share a slug never share a folder;
 * - the agents repository's `get_all()`;
 * - its REST routes `datamachine/v1/files/agent`, `/files/agent/{filename}` and
 *   `/files/agent/daily`, read from that disk store (`uploads_dir` in the script).
 *
 * The harness's script gives the rows: {"users": [{ID, user_login, role}], "agents": [...]}.
 */

namespace DataMachine\Core\Database\Agents {

	class Agents {
		private function rows() {
			return isset( $GLOBALS['script']['agents'] ) ? $GLOBALS['script']['agents'] : array();
		}

		public function get_agent( int $agent_id ) {
			foreach ( $this->rows() as $row ) {
				if ( (int) $row['agent_id'] === $agent_id ) {
					return $row;
				}
			}
			return null;
		}

		public function get_all( array $args = array() ) {
			return $this->rows();
		}

		public function get_by_owner_id( int $owner_id ) {
			foreach ( $this->rows() as $row ) {
				if ( (int) $row['owner_id'] === $owner_id ) {
					return $row;
				}
			}
			return null;
		}
	}
}

namespace DataMachine\Core\FilesRepository {

	if ( ! empty( $GLOBALS['harness_directory_manager'] ) ) {
		class DirectoryManager {
			public static function get_default_agent_user_id(): int {
				if ( defined( 'DATAMACHINE_DEFAULT_AGENT_USER' ) ) {
					return (int) DATAMACHINE_DEFAULT_AGENT_USER;
				}
				$ids = array();
				foreach ( $GLOBALS['script']['users'] as $user ) {
					if ( 'administrator' === $user['role'] ) {
						$ids[] = (int) $user['ID'];
					}
				}
				sort( $ids );
				return $ids ? $ids[0] : 1;
			}

			public function get_effective_user_id( int $user_id = 0 ): int {
				return $user_id > 0 ? $user_id : self::get_default_agent_user_id();
			}

			public function get_agent_slug_for_user( int $user_id ): string {
				$user_id = $this->get_effective_user_id( $user_id );
				$row     = ( new \DataMachine\Core\Database\Agents\Agents() )->get_by_owner_id( $user_id );
				if ( ! empty( $row['agent_slug'] ) ) {
					return sanitize_title( (string) $row['agent_slug'] );
				}
				$user = get_user_by( 'id', $user_id );
				if ( $user && ! empty( $user->user_login ) ) {
					return sanitize_title( (string) $user->user_login );
				}
				return 'user-' . $user_id;
			}

			/** The agent row a context names (agent id, else the effective user's own agent). */
			private function agent_row( array $context ) {
				$repo     = new \DataMachine\Core\Database\Agents\Agents();
				$agent_id = (int) ( $context['agent_id'] ?? 0 );
				if ( $agent_id > 0 ) {
					return $repo->get_agent( $agent_id );
				}
				return $repo->get_by_owner_id( $this->get_effective_user_id( (int) ( $context['user_id'] ?? 0 ) ) );
			}

			public function resolve_agent_directory( array $context ): string {
				$slug = $this->resolve_agent_slug( $context );
				$row  = $this->agent_row( $context );
				if ( ! empty( $row['instance_key'] ) && 'default' !== $row['instance_key'] ) {
					$slug .= '--' . substr( hash( 'sha256', (string) $row['instance_key'] ), 0, 16 );
				}
				return harness_uploads_dir() . '/datamachine-files/agents/' . $slug;
			}

			public function resolve_agent_slug( array $context ): string {
				if ( ! empty( $context['agent_slug'] ) ) {
					return sanitize_title( (string) $context['agent_slug'] );
				}
				$agent_id = (int) ( $context['agent_id'] ?? 0 );
				if ( $agent_id > 0 ) {
					$row = ( new \DataMachine\Core\Database\Agents\Agents() )->get_agent( $agent_id );
					if ( ! empty( $row['agent_slug'] ) ) {
						return sanitize_title( (string) $row['agent_slug'] );
					}
				}
				return $this->get_agent_slug_for_user( (int) ( $context['user_id'] ?? 0 ) );
			}
		}
	}
}

namespace {

	/** Data Machine's uploads folder (`wp_upload_dir()['basedir']`) in this stand-in. */
	function harness_uploads_dir() {
		return isset( $GLOBALS['script']['uploads_dir'] ) ? rtrim( $GLOBALS['script']['uploads_dir'], '/' ) : '/nonexistent/uploads';
	}

	/**
	 * Data Machine's file routes, read from its disk store (the agent's folder, `shared/`, the
	 * user's `users/<id>/`), as `GET /wp-json/datamachine/v1/files/agent...` answers them.
	 */
	function harness_datamachine_routes() {
		$folders = function ( $request ) {
			$manager = new \DataMachine\Core\FilesRepository\DirectoryManager();
			$context = array( 'agent_id' => (int) $request->get_param( 'agent_id' ), 'user_id' => (int) $request->get_param( 'user_id' ) );
			$base    = harness_uploads_dir() . '/datamachine-files';
			return array(
				'shared' => $base . '/shared',
				'agent'  => $manager->resolve_agent_directory( $context ),
				'user'   => $base . '/users/' . $manager->get_effective_user_id( (int) $request->get_param( 'user_id' ) ),
			);
		};
		register_rest_route(
			'datamachine/v1',
			'/files/agent',
			array(
				'methods'  => 'GET',
				'callback' => function ( $request ) use ( $folders ) {
					$data = array();
					foreach ( $folders( $request ) as $layer => $folder ) {
						foreach ( is_dir( $folder ) ? scandir( $folder ) : array() as $name ) {
							if ( is_file( $folder . '/' . $name ) && '.' !== $name[0] && 'index.php' !== $name ) {
								$data[] = array( 'filename' => $name, 'type' => 'core', 'layer' => $layer );
							}
						}
					}
					$data[] = array( 'filename' => 'daily', 'type' => 'daily_summary' );
					return array( 'success' => true, 'data' => $data );
				},
			)
		);
		register_rest_route(
			'datamachine/v1',
			'/files/agent/daily',
			array(
				'methods'  => 'GET',
				'callback' => function () {
					return array( 'success' => true, 'data' => new \stdClass() );
				},
			)
		);
		register_rest_route(
			'datamachine/v1',
			'/files/agent/(?P<filename>[^/]+)',
			array(
				'methods'  => 'GET',
				'callback' => function ( $request ) use ( $folders ) {
					$name = basename( (string) $request->get_param( 'filename' ) );
					foreach ( $folders( $request ) as $folder ) {
						if ( is_file( $folder . '/' . $name ) ) {
							return array( 'success' => true, 'data' => array( 'filename' => $name, 'content' => file_get_contents( $folder . '/' . $name ) ) );
						}
					}
					return new WP_REST_Response( array( 'code' => 'not_found' ), 404 );
				},
			)
		);
	}
}
