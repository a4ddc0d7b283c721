// libcurl for `CurlTransport` (OfflineODataSync, Linux). curl_easy_setopt and its kin are
// variadic, which Swift cannot call: these typed wrappers make each call with the argument type
// the option documents, and the macros Swift does not import are given as constants.
#include <curl/curl.h>

static inline CURLcode oo_easy_setopt_long(CURL *easy, CURLoption option, long value) {
    return curl_easy_setopt(easy, option, value);
}
static inline CURLcode oo_easy_setopt_off(CURL *easy, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(easy, option, value);
}
static inline CURLcode oo_easy_setopt_pointer(CURL *easy, CURLoption option, const void *value) {
    return curl_easy_setopt(easy, option, value);
}
static inline CURLcode oo_easy_setopt_string(CURL *easy, CURLoption option, const char *value) {
    return curl_easy_setopt(easy, option, value);
}
static inline CURLcode oo_easy_setopt_slist(CURL *easy, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(easy, option, value);
}
static inline CURLcode oo_easy_setopt_share(CURL *easy, CURLSH *share) {
    return curl_easy_setopt(easy, CURLOPT_SHARE, share);
}
static inline CURLcode oo_easy_setopt_write_function(CURL *easy, CURLoption option, curl_write_callback function) {
    return curl_easy_setopt(easy, option, function);
}
static inline CURLcode oo_easy_setopt_read_function(CURL *easy, curl_read_callback function) {
    return curl_easy_setopt(easy, CURLOPT_READFUNCTION, function);
}
static inline CURLcode oo_easy_setopt_seek_function(CURL *easy, curl_seek_callback function) {
    return curl_easy_setopt(easy, CURLOPT_SEEKFUNCTION, function);
}
static inline CURLcode oo_easy_getinfo_long(CURL *easy, CURLINFO info, long *value) {
    return curl_easy_getinfo(easy, info, value);
}
static inline CURLcode oo_easy_getinfo_pointer(CURL *easy, CURLINFO info, char **value) {
    return curl_easy_getinfo(easy, info, value);
}
static inline CURLSHcode oo_share_setopt_long(CURLSH *share, CURLSHoption option, long value) {
    return curl_share_setopt(share, option, value);
}
static inline CURLMcode oo_multi_setopt_long(CURLM *multi, CURLMoption option, long value) {
    return curl_multi_setopt(multi, option, value);
}

static const long OO_CURLAUTH_BASIC = (long)CURLAUTH_BASIC;
static const long OO_CURLAUTH_DIGEST = (long)CURLAUTH_DIGEST;
static const size_t OO_CURL_READFUNC_ABORT = CURL_READFUNC_ABORT;
static const int OO_CURL_SEEKFUNC_OK = CURL_SEEKFUNC_OK;
static const int OO_CURL_SEEKFUNC_CANTSEEK = CURL_SEEKFUNC_CANTSEEK;
static const long OO_CURL_HTTP_VERSION_1_1 = CURL_HTTP_VERSION_1_1;
