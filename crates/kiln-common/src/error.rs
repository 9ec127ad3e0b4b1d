//! MySQL errors as kiln raises them: error number, SQLSTATE and the message text MySQL
//! 8.0 prints for it. One table (`errors!` below) is the single source of truth; each
//! entry's message is MySQL's format string with `%s`/`%d`/`%lu`/`%.*s` placeholders
//! filled positionally by [`KilnError::new`].

use std::fmt;

macro_rules! errors {
    ($( $name:ident = ($code:expr, $state:expr, $fmt:expr); )*) => {
        /// A MySQL error condition: `code()` is the errno, `sqlstate()` the SQLSTATE.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[allow(non_camel_case_types)]
        pub enum ErrorKind { $( $name, )* }

        impl ErrorKind {
            /// MySQL error number (e.g. 1045 for ER_ACCESS_DENIED_ERROR).
            pub const fn code(self) -> u16 { match self { $( ErrorKind::$name => $code, )* } }
            /// Five-character SQLSTATE.
            pub const fn sqlstate(self) -> &'static str { match self { $( ErrorKind::$name => $state, )* } }
            /// MySQL's message format string.
            pub const fn format(self) -> &'static str { match self { $( ErrorKind::$name => $fmt, )* } }
            /// Symbolic name as in MySQL's errmsg (ER_...).
            pub const fn name(self) -> &'static str { match self { $( ErrorKind::$name => stringify!($name), )* } }
            /// Looks an error up by number.
            #[allow(unreachable_patterns)]
            pub fn from_code(code: u16) -> Option<ErrorKind> {
                match code { $( $code => Some(ErrorKind::$name), )* _ => None }
            }
        }
    };
}

errors! {
    ER_HANDSHAKE_ERROR = (1043, "08S01", "Bad handshake");
    ER_CON_COUNT_ERROR = (1040, "08004", "Too many connections");
    ER_OUT_OF_RESOURCES = (1041, "HY000", "Out of memory; check if mysqld or some other process uses all available memory; if not, you may have to use 'ulimit' to allow mysqld to use more memory or you can add more swap space");
    ER_DBACCESS_DENIED_ERROR = (1044, "42000", "Access denied for user '%s'@'%s' to database '%s'");
    ER_ACCESS_DENIED_ERROR = (1045, "28000", "Access denied for user '%s'@'%s' (using password: %s)");
    ER_NO_DB_ERROR = (1046, "3D000", "No database selected");
    ER_UNKNOWN_COM_ERROR = (1047, "08S01", "Unknown command");
    ER_BAD_NULL_ERROR = (1048, "23000", "Column '%s' cannot be null");
    ER_BAD_DB_ERROR = (1049, "42000", "Unknown database '%s'");
    ER_TABLE_EXISTS_ERROR = (1050, "42S01", "Table '%s' already exists");
    ER_BAD_TABLE_ERROR = (1051, "42S02", "Unknown table '%s'");
    ER_NON_UNIQ_ERROR = (1052, "23000", "Column '%s' in %s is ambiguous");
    ER_SERVER_SHUTDOWN = (1053, "08S01", "Server shutdown in progress");
    ER_BAD_FIELD_ERROR = (1054, "42S22", "Unknown column '%s' in '%s'");
    ER_WRONG_FIELD_WITH_GROUP = (1055, "42000", "Expression #%u of %s is not in GROUP BY clause and contains nonaggregated column '%s' which is not functionally dependent on columns in GROUP BY clause; this is incompatible with sql_mode=only_full_group_by");
    ER_DUP_FIELDNAME = (1060, "42S21", "Duplicate column name '%s'");
    ER_DUP_KEYNAME = (1061, "42000", "Duplicate key name '%s'");
    ER_DUP_ENTRY = (1062, "23000", "Duplicate entry '%s' for key '%s'");
    ER_PARSE_ERROR = (1064, "42000", "%s near '%s' at line %d");
    ER_EMPTY_QUERY = (1065, "42000", "Query was empty");
    ER_NONUNIQ_TABLE = (1066, "42000", "Not unique table/alias: '%s'");
    ER_INVALID_DEFAULT = (1067, "42000", "Invalid default value for '%s'");
    ER_MULTIPLE_PRI_KEY = (1068, "42000", "Multiple primary key defined");
    ER_TOO_LONG_IDENT = (1059, "42000", "Identifier name '%s' is too long");
    ER_WRONG_VALUE_COUNT_ON_ROW = (1136, "21S01", "Column count doesn't match value count at row %lu");
    ER_CANT_REOPEN_TABLE = (1137, "HY000", "Can't reopen table: '%s'");
    ER_NO_SUCH_THREAD = (1094, "HY000", "Unknown thread id: %lu");
    ER_KILL_DENIED_ERROR = (1095, "HY000", "You are not owner of thread %lu");
    ER_NO_TABLES_USED = (1096, "HY000", "No tables used");
    ER_UNKNOWN_SYSTEM_VARIABLE = (1193, "HY000", "Unknown system variable '%s'");
    ER_NET_PACKET_TOO_LARGE = (1153, "08S01", "Got a packet bigger than 'max_allowed_packet' bytes");
    ER_NET_READ_ERROR_FROM_PIPE = (1154, "08S01", "Got a read error from the connection pipe");
    ER_NET_FCNTL_ERROR = (1155, "08S01", "Got an error from fcntl()");
    ER_NET_PACKETS_OUT_OF_ORDER = (1156, "08S01", "Got packets out of order");
    ER_NET_UNCOMPRESS_ERROR = (1157, "08S01", "Couldn't uncompress communication packet");
    ER_NET_READ_ERROR = (1158, "08S01", "Got an error reading communication packets");
    ER_NET_READ_INTERRUPTED = (1159, "08S01", "Got timeout reading communication packets");
    ER_NET_ERROR_ON_WRITE = (1160, "08S01", "Got an error writing communication packets");
    ER_NET_WRITE_INTERRUPTED = (1161, "08S01", "Got timeout writing communication packets");
    ER_TOO_LONG_STRING = (1162, "42000", "Result string is longer than 'max_allowed_packet' bytes");
    ER_UNKNOWN_ERROR = (1105, "HY000", "Unknown error");
    ER_UNKNOWN_PROCEDURE = (1106, "42000", "Unknown procedure '%s'");
    ER_UNKNOWN_TABLE = (1109, "42S02", "Unknown table '%s' in %s");
    ER_NO_SUCH_TABLE = (1146, "42S02", "Table '%s.%s' doesn't exist");
    ER_SPECIFIC_ACCESS_DENIED_ERROR = (1227, "42000", "Access denied; you need (at least one of) the %s privilege(s) for this operation");
    ER_LOCAL_VARIABLE = (1228, "HY000", "Variable '%s' is a SESSION variable and can't be used with SET GLOBAL");
    ER_GLOBAL_VARIABLE = (1229, "HY000", "Variable '%s' is a GLOBAL variable and should be set with SET GLOBAL");
    ER_NO_DEFAULT = (1230, "42000", "Variable '%s' doesn't have a default value");
    ER_WRONG_VALUE_FOR_VAR = (1231, "42000", "Variable '%s' can't be set to the value of '%s'");
    ER_WRONG_TYPE_FOR_VAR = (1232, "42000", "Incorrect argument type to variable '%s'");
    ER_VAR_CANT_BE_READ = (1233, "HY000", "Variable '%s' can only be set, not read");
    ER_NOT_SUPPORTED_YET = (1235, "42000", "This version of MySQL doesn't yet support '%s'");
    ER_UNKNOWN_EXPLAIN_FORMAT = (1791, "HY000", "Unknown EXPLAIN format name: '%s'");
    ER_INCORRECT_GLOBAL_LOCAL_VAR = (1238, "HY000", "Variable '%s' is a %s variable");
    ER_WRONG_ARGUMENTS = (1210, "HY000", "Incorrect arguments to %s");
    ER_UNKNOWN_STMT_HANDLER = (1243, "HY000", "Unknown prepared statement handler (%.*s) given to %s");
    ER_UNSUPPORTED_PS = (1295, "HY000", "This command is not supported in the prepared statement protocol yet");
    ER_TRUNCATED_WRONG_VALUE = (1292, "22007", "Truncated incorrect %s value: '%s'");
    ER_SP_DOES_NOT_EXIST = (1305, "42000", "%s %s does not exist");
    ER_QUERY_INTERRUPTED = (1317, "70100", "Query execution was interrupted");
    ER_WRONG_ARGUMENTS_FOR_FN = (1582, "42000", "Incorrect parameter count in the call to native function '%s'");
    ER_DIVISION_BY_ZERO = (1365, "22012", "Division by 0");
    ER_DATA_OUT_OF_RANGE = (1690, "22003", "%s value is out of range in '%s'");
    ER_TOO_HIGH_LEVEL_OF_NESTING_FOR_SELECT = (1473, "HY000", "Too high level of nesting for select");
    ER_STACK_OVERRUN_NEED_MORE = (1436, "HY000", "Thread stack overrun:  %ld bytes used of a %ld byte stack, and %ld bytes needed.  Use 'mysqld --thread_stack=#' to specify a bigger stack.");
    ER_LOCK_WAIT_TIMEOUT = (1205, "HY000", "Lock wait timeout exceeded; try restarting transaction");
    ER_LOCK_DEADLOCK = (1213, "40001", "Deadlock found when trying to get lock; try restarting transaction");
    ER_TABLE_NOT_LOCKED = (1100, "HY000", "Table '%s' was not locked with LOCK TABLES");
    ER_TABLE_NOT_LOCKED_FOR_WRITE = (1099, "HY000", "Table '%s' was locked with a READ lock and can't be updated");
    ER_CANT_UPDATE_WITH_READLOCK = (1223, "HY000", "Can't execute the query because you have a conflicting read lock");
    ER_LOCK_OR_ACTIVE_TRANSACTION = (1192, "HY000", "Can't execute the given command because you have active locked tables or an active transaction");
    ER_USER_LOCK_WRONG_NAME = (3057, "42000", "Incorrect user-level lock name '%s'.");
    ER_USER_LOCK_DEADLOCK = (3058, "HY000", "Deadlock found when trying to get user-level lock; try rolling back transaction/releasing locks and restarting lock acquisition.");
    ER_CANT_EXECUTE_IN_READ_ONLY_TRANSACTION = (1792, "25006", "Cannot execute statement in a READ ONLY transaction.");
    ER_TOO_MANY_USER_CONNECTIONS = (1203, "42000", "User %s already has more than 'max_user_connections' active connections");
    ER_USER_LIMIT_REACHED = (1226, "42000", "User '%s' has exceeded the '%s' resource (current value: %ld)");
    ER_SECURE_TRANSPORT_REQUIRED = (3159, "HY000", "Connections using insecure transport are prohibited while --require_secure_transport=ON.");
    ER_MUST_CHANGE_PASSWORD = (1820, "HY000", "You must reset your password using ALTER USER statement before executing this statement.");
    ER_MAX_PREPARED_STMT_COUNT_REACHED = (1461, "42000", "Can't create more than max_prepared_stmt_count statements (current value: %lu)");
    ER_PS_MANY_PARAM = (1390, "HY000", "Prepared statement contains too many placeholders");
    ER_NO_SUCH_USER = (1449, "HY000", "The user specified as a definer ('%s'@'%s') does not exist");
    ER_TABLEACCESS_DENIED_ERROR = (1142, "42000", "%s command denied to user '%s'@'%s' for table '%s'");
    ER_WRONG_VALUE = (1525, "HY000", "Incorrect %s value: '%s'");
    ER_WRONG_VALUE_FOR_TYPE = (1411, "HY000", "Incorrect %s value: '%s' for function %s");
    ER_TABLE_DEF_CHANGED = (1412, "HY000", "Table definition has changed, please retry transaction");
    ER_INVALID_JSON_TEXT_IN_PARAM = (3141, "22032", "Invalid JSON text in argument %u to function %s: \"%s\" at position %u.%s");
    ER_INVALID_JSON_PATH = (3143, "42000", "Invalid JSON path expression. The error is around character position %u.%s");
    ER_JSON_DOCUMENT_NULL_KEY = (3158, "22032", "JSON documents may not contain NULL member names.");
    ER_INVALID_JSON_TEXT = (3140, "22032", "Invalid JSON text: \"%s\" at position %u in value for column '%s'.");
    ER_INTERNAL_ERROR = (1815, "HY000", "Internal error: %s");
    ER_CRASHED_ON_USAGE = (1194, "HY000", "Table '%s' is marked as crashed and should be repaired");
    ER_IO_ERROR = (1026, "HY000", "Error writing file '%s' (errno: %d - %s)");
    ER_ERROR_ON_READ = (1024, "HY000", "Error reading file '%s' (errno: %d - %s)");
    ER_RECORD_FILE_FULL = (1114, "HY000", "The table '%s' is full");
    ER_DISK_FULL = (1021, "HY000", "Disk full (%s); waiting for someone to free some space... (errno: %d - %s)");
    ER_NOT_KEYFILE = (1034, "HY000", "Incorrect key file for table '%s'; try to repair it");
    ER_TOO_BIG_ROWSIZE = (1118, "42000", "Row size too large. The maximum row size for the used table type, not counting BLOBs, is %ld. This includes storage overhead, check the manual. You have to change some columns to TEXT or BLOBs");
    ER_OPTION_PREVENTS_STATEMENT = (1290, "HY000", "The MySQL server is running with the %s option so it cannot execute this statement");
    ER_CANT_DO_THIS_DURING_AN_TRANSACTION = (1179, "25000", "You are not allowed to execute this command in a transaction");
    ER_SP_DOES_NOT_EXIST_SAVEPOINT = (1305, "42000", "SAVEPOINT %s does not exist");
    ER_VARIABLE_IS_READONLY = (1621, "HY000", "%s variable '%s' is read-only. Use SET %s to assign the value");
    ER_INCORRECT_GLOBAL_LOCAL_VAR_RO = (1238, "HY000", "Variable '%s' is a read only variable");
    ER_WARN_DATA_OUT_OF_RANGE = (1264, "22003", "Out of range value for column '%s' at row %ld");
    ER_WARN_DATA_TRUNCATED = (1265, "01000", "Data truncated for column '%s' at row %ld");
    ER_TRUNCATED_WRONG_VALUE_FOR_FIELD = (1366, "HY000", "Incorrect %s value: '%s' for column '%s' at row %ld");
    ER_WRONG_DB_NAME = (1102, "42000", "Incorrect database name '%s'");
    ER_WRONG_TABLE_NAME = (1103, "42000", "Incorrect table name '%s'");
    ER_DB_CREATE_EXISTS = (1007, "HY000", "Can't create database '%s'; database exists");
    ER_DB_DROP_EXISTS = (1008, "HY000", "Can't drop database '%s'; database doesn't exist");
    ER_FUNCTION_NOT_DEFINED = (1128, "HY000", "Function '%s' is not defined");
    ER_SP_DOES_NOT_EXIST_FUNCTION = (1305, "42000", "FUNCTION %s does not exist");
    ER_WRONG_PARAMCOUNT_TO_NATIVE_FCT = (1582, "42000", "Incorrect parameter count in the call to native function '%s'");
    ER_ILLEGAL_VALUE_FOR_TYPE = (1367, "22007", "Illegal %s '%s' value found during parsing");
    ER_CANT_CHANGE_TX_CHARACTERISTICS = (1568, "25001", "Transaction characteristics can't be changed while a transaction is in progress");
    ER_UNKNOWN_CHARACTER_SET = (1115, "42000", "Unknown character set: '%s'");
    ER_UNKNOWN_COLLATION = (1273, "HY000", "Unknown collation: '%s'");
    ER_COLLATION_CHARSET_MISMATCH = (1253, "42000", "COLLATION '%s' is not valid for CHARACTER SET '%s'");
    ER_CANT_AGGREGATE_2COLLATIONS = (1267, "HY000", "Illegal mix of collations (%s,%s) and (%s,%s) for operation '%s'");
    ER_WARN_DEPRECATED_SYNTAX = (1287, "HY000", "'%s' is deprecated and will be removed in a future release. Please use %s instead");
    ER_NO_DEFAULT_FOR_FIELD = (1364, "HY000", "Field '%s' doesn't have a default value");
    ER_DATA_TOO_LONG = (1406, "22001", "Data too long for column '%s' at row %ld");
    ER_WRONG_AUTO_KEY = (1075, "42000", "Incorrect table definition; there can be only one auto column and it must be defined as a key");
    ER_CANT_DROP_FIELD_OR_KEY = (1091, "42000", "Can't DROP '%s'; check that column/key exists");
    ER_FIELD_SPECIFIED_TWICE = (1110, "42000", "Column '%s' specified twice");
    ER_KEY_COLUMN_DOES_NOT_EXITS = (1072, "42000", "Key column '%s' doesn't exist in table");
    ER_TOO_BIG_FIELDLENGTH = (1074, "42000", "Column length too big for column '%s' (max = %lu); use BLOB or TEXT instead");
    ER_TOO_LONG_KEY = (1071, "42000", "Specified key was too long; max key length is %d bytes");
    ER_TABLE_MUST_HAVE_COLUMNS = (1113, "42000", "A table must have at least 1 column");
    ER_TOO_MANY_FIELDS = (1117, "HY000", "Too many columns");
    ER_TOO_MANY_KEYS = (1069, "42000", "Too many keys specified; max %d keys allowed");
    ER_TOO_MANY_KEY_PARTS = (1070, "42000", "Too many key parts specified; max %d parts allowed");
    ER_BLOB_KEY_WITHOUT_LENGTH = (1170, "42000", "BLOB/TEXT column '%s' used in key specification without a key length");
    ER_TOO_BIG_PRECISION = (1426, "42000", "Too-big precision %u specified for '%s'. Maximum is %u.");
    ER_TOO_BIG_SCALE = (1425, "42000", "Too big scale %u specified for column '%s'. Maximum is %u.");
    ER_M_BIGGER_THAN_D = (1427, "42000", "For float(M,D), double(M,D) or decimal(M,D), M must be >= D (column '%s').");
    ER_INVALID_GROUP_FUNC_USE = (1111, "HY000", "Invalid use of group function");
    ER_MIX_OF_GROUP_FUNC_AND_FIELDS = (1140, "42000", "In aggregated query without GROUP BY, expression #%u of SELECT list contains nonaggregated column '%s'; this is incompatible with sql_mode=only_full_group_by");
    ER_KEY_DOES_NOT_EXITS = (1176, "42000", "Key '%s' doesn't exist in table '%s'");
    ER_SUBQUERY_NO_1_ROW = (1242, "21000", "Subquery returns more than 1 row");
    ER_OPERAND_COLUMNS = (1241, "21000", "Operand should contain %d column(s)");
    ER_WRONG_VALUE_COUNT = (1058, "21S01", "Column count doesn't match value count");
    ER_WRONG_USAGE = (1221, "HY000", "Incorrect usage of %s and %s");
    ER_WARN_NULL_TO_NOTNULL = (1263, "22004", "Column set to default value; NULL supplied to NOT NULL column '%s' at row %ld");
    ER_INVALID_USE_OF_NULL = (1138, "22004", "Invalid use of NULL value");
    ER_PRIMARY_CANT_HAVE_NULL = (1171, "42000", "All parts of a PRIMARY KEY must be NOT NULL; if you need NULL in a key, use UNIQUE instead");
    ER_CANT_REMOVE_ALL_FIELDS = (1090, "42000", "You can't delete all columns with ALTER TABLE; use DROP TABLE instead");
    ER_DUPLICATED_VALUE_IN_TYPE = (1291, "HY000", "Column '%s' has duplicated value '%s' in %s");
    ER_WRONG_COLUMN_NAME = (1166, "42000", "Incorrect column name '%s'");
    ER_WRONG_FIELD_SPEC = (1063, "42000", "Incorrect column specifier for column '%s'");
    ER_WRONG_SUB_KEY = (1089, "HY000", "Incorrect prefix key; the used key part isn't a string, the used length is longer than the key part, or the storage engine doesn't support unique prefix keys");
    ER_DERIVED_MUST_HAVE_ALIAS = (1248, "42000", "Every derived table must have its own alias");
    ER_WRONG_NUMBER_OF_COLUMNS_IN_SELECT = (1222, "21000", "The used SELECT statements have a different number of columns");
    ER_NON_UPDATABLE_TABLE = (1288, "HY000", "The target table %s of the %s is not updatable");
    ER_UPDATE_TABLE_USED = (1093, "HY000", "You can't specify target table '%s' for update in FROM clause");
    ER_FIELD_IN_ORDER_NOT_SELECT = (3065, "HY000", "Expression #%u of ORDER BY clause is not in SELECT list, references column '%s' which is not in SELECT list; this is incompatible with %s");
    ER_WRONG_FIELD_TERMINATORS = (1083, "42000", "Field separator argument is not what is expected; check the manual");
    ER_AUTOINC_READ_FAILED = (1467, "HY000", "Failed to read auto-increment value from storage engine");
    ER_ALTER_OPERATION_NOT_SUPPORTED = (1845, "0A000", "%s is not supported for this operation. Try %s.");
    ER_WRONG_OBJECT = (1347, "HY000", "'%s.%s' is not %s");
    ER_NONUPDATEABLE_COLUMN = (1348, "HY000", "Column '%s' is not updatable");
    ER_VIEW_DELETE_MERGE_VIEW = (1395, "HY000", "Can not delete from join view '%s.%s'");
    ER_FORBID_SCHEMA_CHANGE = (1450, "HY000", "Changing schema from '%s' to '%s' is not allowed.");
    ER_VIEW_MULTIUPDATE = (1393, "HY000", "Can not modify more than one base table through a join view '%s.%s'");
    ER_VIEW_INVALID = (1356, "HY000", "View '%s.%s' references invalid table(s) or column(s) or function(s) or definer/invoker of view lack rights to use them");
    ER_VIEW_CHECK_FAILED = (1369, "HY000", "CHECK OPTION failed '%s.%s'");
    ER_VIEW_NONUPD_CHECK = (1368, "HY000", "CHECK OPTION on non-updatable view '%s.%s'");
    ER_VIEW_RECURSIVE = (1462, "HY000", "`%s`.`%s` contains view recursion");
    ER_VIEW_WRONG_LIST = (1353, "HY000", "In definition of view, derived table or common table expression, SELECT list and column names list have different column counts");
    ER_VIEW_SELECT_VARIABLE = (1351, "HY000", "View's SELECT contains a variable or parameter");
    ER_VIEW_SELECT_TMPTABLE = (1352, "HY000", "View's SELECT refers to a temporary table '%s'");
    ER_NON_INSERTABLE_TABLE = (1471, "HY000", "The target table %s of the %s is not insertable-into");
    ER_TOO_LONG_TABLE_COMMENT = (1628, "HY000", "Comment for table '%s' is too long (max = %lu)");
    ER_ILLEGAL_GRANT_FOR_TABLE = (1144, "42000", "Illegal GRANT/REVOKE command; please consult the manual to see which privileges can be used");
    ER_NONEXISTING_GRANT = (1141, "42000", "There is no such grant defined for user '%s' on host '%s'");
    ER_REVOKE_GRANTS = (1269, "HY000", "Can't revoke all privileges for one or more of the requested users");
    ER_CANNOT_USER = (1396, "HY000", "Operation %s failed for %s");
    ER_CANT_CREATE_USER_WITH_GRANT = (1410, "42000", "You are not allowed to create a user with GRANT");
    ER_NONEXISTING_TABLE_GRANT = (1147, "42000", "There is no such grant defined for user '%s' on host '%s' on table '%s'");
    ER_COLUMNACCESS_DENIED_ERROR = (1143, "42000", "%s command denied to user '%s'@'%s' for column '%s' in table '%s'");
    ER_TOO_BIG_SELECT = (1104, "42000", "The SELECT would examine more than MAX_JOIN_SIZE rows; check your WHERE and use SET SQL_BIG_SELECTS=1 or SET MAX_JOIN_SIZE=# if the SELECT is okay");
    ER_TRUNCATED_WRONG_VALUE_DATE = (1292, "22007", "Incorrect %s value: '%s' for column '%s' at row %ld");
    ER_UNKNOWN_STORAGE_ENGINE = (1286, "42000", "Unknown storage engine '%s'");
    ER_WRONG_NAME_FOR_INDEX = (1280, "42000", "Incorrect index name '%s'");
    ER_LOCK_NOWAIT = (3572, "HY000", "Statement aborted because lock(s) could not be acquired immediately and NOWAIT is set.");
    ER_YES = (1003, "HY000", "YES");
    EE_FILENOTFOUND = (29, "HY000", "File '%s' not found (OS errno %d - %s)");
    ER_WARN_TOO_FEW_RECORDS = (1261, "01000", "Row %ld doesn't contain data for all columns");
    ER_WARN_TOO_MANY_RECORDS = (1262, "01000", "Row %ld was truncated; it contained more data than there were input columns");
    ER_CLIENT_LOCAL_FILES_DISABLED = (3948, "42000", "Loading local data is disabled; this must be enabled on both the client and server sides");
    ER_ILLEGAL_REFERENCE = (1247, "42S22", "Reference '%s' not supported (%s)");
    ER_WINDOW_NO_SUCH_WINDOW = (3579, "HY000", "Window name '%s' is not defined.");
    ER_WINDOW_CIRCULARITY_IN_WINDOW_GRAPH = (3580, "HY000", "There is a circularity in the window dependency graph.");
    ER_WINDOW_NO_CHILD_PARTITIONING = (3581, "HY000", "A window which depends on another cannot define partitioning.");
    ER_WINDOW_NO_INHERIT_FRAME = (3582, "HY000", "Window '%s' has a frame definition, so cannot be referenced by another window.");
    ER_WINDOW_NO_REDEFINE_ORDER_BY = (3583, "HY000", "Window '%s' cannot inherit '%s' since both contain an ORDER BY clause.");
    ER_WINDOW_FRAME_START_ILLEGAL = (3584, "HY000", "Window '%s': frame start cannot be UNBOUNDED FOLLOWING.");
    ER_WINDOW_FRAME_END_ILLEGAL = (3585, "HY000", "Window '%s': frame end cannot be UNBOUNDED PRECEDING.");
    ER_WINDOW_FRAME_ILLEGAL = (3586, "HY000", "Window '%s': frame start or end is negative, NULL or of non-integral type");
    ER_WINDOW_RANGE_FRAME_ORDER_TYPE = (3587, "HY000", "Window '%s' with RANGE N PRECEDING/FOLLOWING frame requires exactly one ORDER BY expression, of numeric or temporal type");
    ER_WINDOW_RANGE_FRAME_TEMPORAL_TYPE = (3588, "HY000", "Window '%s' with RANGE frame has ORDER BY expression of datetime type. Only INTERVAL bound value allowed.");
    ER_WINDOW_RANGE_FRAME_NUMERIC_TYPE = (3589, "HY000", "Window '%s' with RANGE frame has ORDER BY expression of numeric type, INTERVAL bound value not allowed.");
    ER_WINDOW_RANGE_BOUND_NOT_CONSTANT = (3590, "HY000", "Window '%s' has a non-constant frame bound.");
    ER_WINDOW_DUPLICATE_NAME = (3591, "HY000", "Window '%s' is defined twice.");
    ER_WINDOW_ILLEGAL_ORDER_BY = (3592, "HY000", "Window '%s': ORDER BY or PARTITION BY uses legacy position indication which is not supported, use expression.");
    ER_WINDOW_INVALID_WINDOW_FUNC_USE = (3593, "HY000", "You cannot use the window function '%s' in this context.'");
    ER_WINDOW_INVALID_WINDOW_FUNC_ALIAS_USE = (3594, "HY000", "You cannot use the alias '%s' of an expression containing a window function in this context.'");
    ER_WINDOW_NESTED_WINDOW_FUNC_USE_IN_WINDOW_SPEC = (3595, "HY000", "You cannot nest a window function in the specification of window '%s'.");
    ER_WINDOW_ROWS_INTERVAL_USE = (3596, "HY000", "Window '%s': INTERVAL can only be used with RANGE frames.");
    ER_TRG_ALREADY_EXISTS = (1359, "HY000", "Trigger already exists");
    ER_TRG_DOES_NOT_EXIST = (1360, "HY000", "Trigger does not exist");
    ER_TRG_ON_VIEW_OR_TEMP_TABLE = (1361, "HY000", "Trigger's '%s' is view or temporary table");
    ER_TRG_CANT_CHANGE_ROW = (1362, "HY000", "Updating of %s row is not allowed in %strigger");
    ER_TRG_NO_SUCH_ROW_IN_TRG = (1363, "HY000", "There is no %s row in %s trigger");
    ER_TRG_IN_WRONG_SCHEMA = (1435, "HY000", "Trigger in wrong schema");
    ER_CANT_UPDATE_USED_TABLE_IN_SF_OR_TRG = (1442, "HY000", "Can't update table '%s' in stored function/trigger because it is already used by statement which invoked this stored function/trigger.");
    ER_SIGNAL_EXCEPTION = (1644, "HY000", "Unhandled user-defined exception condition");
    ER_COMMIT_NOT_ALLOWED_IN_SF_OR_TRG = (1422, "HY000", "Explicit or implicit commit is not allowed in stored function or trigger.");
    ER_REFERENCED_TRG_DOES_NOT_EXIST = (3011, "HY000", "Referenced trigger '%s' for the given action time and event type does not exist.");
    ER_SP_UNDECLARED_VAR = (1327, "42000", "Undeclared variable: %s");
    ER_SP_DUP_VAR = (1331, "42000", "Duplicate variable: %s");
    ER_SP_LILABEL_MISMATCH = (1308, "42000", "%s with no matching label: %s");
    ER_SP_NO_RETSET = (1415, "0A000", "Not allowed to return a result set from a %s");
    ER_SP_BADSTATEMENT = (1314, "0A000", "%s is not allowed in stored procedures");
    ER_SP_CASE_NOT_FOUND = (1339, "20000", "Case not found for CASE statement");
    ER_SP_BAD_SQLSTATE = (1407, "42000", "Bad SQLSTATE: '%s'");
    ER_SP_FETCH_NO_DATA = (1329, "02000", "No data - zero rows fetched, selected, or processed");
    ER_TOO_MANY_ROWS = (1172, "42000", "Result consisted of more than one row");
    ER_SIGNAL_WARN = (1642, "01000", "Unhandled user-defined warning condition");
    ER_SIGNAL_NOT_FOUND = (1643, "02000", "Unhandled user-defined not found condition");
    ER_SP_NO_RECURSIVE_CREATE = (1303, "2F003", "Can't create a %s from within another stored routine");
    ER_SP_ALREADY_EXISTS = (1304, "42000", "%s %s already exists");
    ER_SP_BADSELECT = (1312, "0A000", "PROCEDURE %s can't return a result set in the given context");
    ER_SP_BADRETURN = (1313, "42000", "RETURN is only allowed in a FUNCTION");
    ER_SP_WRONG_NO_OF_ARGS = (1318, "42000", "Incorrect number of arguments for %s %s; expected %u, got %u");
    ER_SP_COND_MISMATCH = (1319, "42000", "Undefined CONDITION: %s");
    ER_SP_NORETURN = (1320, "42000", "No RETURN found in FUNCTION %s");
    ER_SP_NORETURNEND = (1321, "2F005", "FUNCTION %s ended without RETURN");
    ER_SP_CURSOR_MISMATCH = (1324, "42000", "Undefined CURSOR: %s");
    ER_SP_CURSOR_ALREADY_OPEN = (1325, "24000", "Cursor is already open");
    ER_SP_CURSOR_NOT_OPEN = (1326, "24000", "Cursor is not open");
    ER_SP_WRONG_NO_OF_FETCH_ARGS = (1328, "HY000", "Incorrect number of FETCH variables");
    ER_SP_DUP_PARAM = (1330, "42000", "Duplicate parameter: %s");
    ER_SP_DUP_COND = (1332, "42000", "Duplicate condition: %s");
    ER_SP_DUP_CURS = (1333, "42000", "Duplicate cursor: %s");
    ER_STMT_NOT_ALLOWED_IN_SF_OR_TRG = (1336, "0A000", "%s is not allowed in stored function or trigger");
    ER_SP_VARCOND_AFTER_CURSHNDLR = (1337, "42000", "Variable or condition declaration after cursor or handler declaration");
    ER_SP_CURSOR_AFTER_HANDLER = (1338, "42000", "Cursor declaration after handler declaration");
    ER_SP_NO_DROP_SP = (1357, "HY000", "Can't drop or alter a %s from within another stored routine");
    ER_PROCACCESS_DENIED_ERROR = (1370, "42000", "%s command denied to user '%s'@'%s' for routine '%s'");
    ER_SP_DUP_HANDLER = (1413, "42000", "Duplicate handler declared in the same block");
    ER_SP_NOT_VAR_ARG = (1414, "42000", "OUT or INOUT argument %d for routine %s is not a variable or NEW pseudo-variable in BEFORE trigger");
    ER_SP_NO_RECURSION = (1424, "HY000", "Recursive stored functions and triggers are not allowed.");
    ER_SP_RECURSION_LIMIT = (1456, "HY000", "Recursive limit %d (as set by the max_sp_recursion_depth variable) was exceeded for routine %s");
    ER_SP_WRONG_NAME = (1458, "42000", "Incorrect routine name '%s'");
    ER_NATIVE_FCT_NAME_COLLISION = (1585, "HY000", "This function '%s' has the same name as a native function");
    ER_RESIGNAL_WITHOUT_ACTIVE_HANDLER = (1645, "0K000", "RESIGNAL when handler not active");
    ER_SIGNAL_BAD_CONDITION_TYPE = (1646, "HY000", "SIGNAL/RESIGNAL can only use a CONDITION defined with SQLSTATE");
}

/// An error raised anywhere in kiln, ready to be sent to a client as an ERR packet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KilnError {
    /// MySQL error number.
    pub code: u16,
    /// SQLSTATE, always five ASCII characters.
    pub sqlstate: [u8; 5],
    /// Fully formatted message.
    pub message: String,
}

pub type Result<T, E = KilnError> = std::result::Result<T, E>;

impl KilnError {
    /// Formats `kind`'s MySQL message with `args` filling its placeholders in order.
    pub fn new(kind: ErrorKind, args: &[&dyn fmt::Display]) -> KilnError {
        KilnError {
            code: kind.code(),
            sqlstate: sqlstate_bytes(kind.sqlstate()),
            message: format_mysql(kind.format(), args),
        }
    }

    /// An error with a message of our own (still under `kind`'s number and SQLSTATE).
    pub fn with_message(kind: ErrorKind, message: impl Into<String>) -> KilnError {
        KilnError {
            code: kind.code(),
            sqlstate: sqlstate_bytes(kind.sqlstate()),
            message: message.into(),
        }
    }

    /// Internal errors: a bug or an unexpected state, reported as ER_INTERNAL_ERROR.
    pub fn internal(what: impl fmt::Display) -> KilnError {
        KilnError::new(ErrorKind::ER_INTERNAL_ERROR, &[&what])
    }

    pub fn kind(&self) -> Option<ErrorKind> {
        ErrorKind::from_code(self.code)
    }

    pub fn is(&self, kind: ErrorKind) -> bool {
        self.code == kind.code()
    }

    pub fn sqlstate_str(&self) -> &str {
        std::str::from_utf8(&self.sqlstate).unwrap_or("HY000")
    }
}

impl From<ErrorKind> for KilnError {
    fn from(kind: ErrorKind) -> KilnError {
        KilnError::new(kind, &[])
    }
}

impl fmt::Display for KilnError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "ERROR {} ({}): {}",
            self.code,
            self.sqlstate_str(),
            self.message
        )
    }
}

impl std::error::Error for KilnError {}

fn sqlstate_bytes(s: &str) -> [u8; 5] {
    let b = s.as_bytes();
    assert!(b.len() == 5, "SQLSTATE must be five characters");
    [b[0], b[1], b[2], b[3], b[4]]
}

/// Fills printf-style placeholders (`%s`, `%d`, `%u`, `%lu`, `%ld`, `%.*s`) in order.
/// Missing arguments leave an empty string; extra arguments are ignored.
fn format_mysql(fmt_str: &str, args: &[&dyn fmt::Display]) -> String {
    let mut out = String::with_capacity(fmt_str.len() + 16);
    let mut args = args.iter();
    let mut chars = fmt_str.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        // Skip flags/length modifiers up to the conversion character.
        let mut spec = String::new();
        while let Some(&n) = chars.peek() {
            chars.next();
            if n.is_ascii_alphabetic() && n != 'l' {
                spec.push(n);
                break;
            }
            spec.push(n);
        }
        if spec == "%" {
            out.push('%');
            continue;
        }
        if let Some(a) = args.next() {
            use std::fmt::Write;
            let _ = write!(out, "{a}");
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn access_denied_text_matches_mysql() {
        let e = KilnError::new(
            ErrorKind::ER_ACCESS_DENIED_ERROR,
            &[&"bob", &"localhost", &"YES"],
        );
        assert_eq!(e.code, 1045);
        assert_eq!(&e.sqlstate, b"28000");
        assert_eq!(
            e.message,
            "Access denied for user 'bob'@'localhost' (using password: YES)"
        );
    }

    #[test]
    fn numeric_placeholders_fill() {
        let e = KilnError::new(ErrorKind::ER_NO_SUCH_THREAD, &[&42u64]);
        assert_eq!(e.message, "Unknown thread id: 42");
        let e = KilnError::new(
            ErrorKind::ER_UNKNOWN_STMT_HANDLER,
            &[&"3", &"mysqld_stmt_execute"],
        );
        assert_eq!(
            e.message,
            "Unknown prepared statement handler (3) given to mysqld_stmt_execute"
        );
    }

    #[test]
    fn lookup_by_code() {
        assert_eq!(
            ErrorKind::from_code(1213),
            Some(ErrorKind::ER_LOCK_DEADLOCK)
        );
        assert_eq!(ErrorKind::ER_LOCK_DEADLOCK.sqlstate(), "40001");
    }
}
