/* agbmem_info.c — always-present member of libagbmem.a (GBA build): identifies the build
 * (and its code placement) and keeps the archive non-empty while src/agbmem grows. */
const char *agbmem_build_info(void);

const char *agbmem_build_info(void)
{
#ifdef AGB_PLACE_IWRAM
    return "agbmem GBA ARM/IWRAM";
#else
    return "agbmem GBA Thumb/ROM";
#endif
}
