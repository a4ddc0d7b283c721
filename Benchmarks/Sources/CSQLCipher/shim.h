#include <sqlcipher/sqlite3.h>
