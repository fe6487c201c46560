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
 *   agent user: the first administrator), then that user's login, then `user-<id>`.
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
