/* A thin C face on Embree 3 for the side-by-side ray-cast bench: one
 * device, one scene of triangle meshes, rays cast one at a time
 * (rtcIntersect1) or in packets of eight (rtcIntersect8). */
#include <embree3/rtcore.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

typedef struct {
    RTCDevice device;
    RTCScene scene;
} oe_scene;

static oe_scene the;

int oe_new(void) {
    the.device = rtcNewDevice("threads=1");
    if (!the.device) return -1;
    the.scene = rtcNewScene(the.device);
    rtcSetSceneBuildQuality(the.scene, RTC_BUILD_QUALITY_HIGH);
    return 0;
}

/* A mesh of nv vertices (xyz, float) and nt triangles (three indices). */
int oe_add_mesh(const float *v, size_t nv, const uint32_t *idx, size_t nt) {
    RTCGeometry g = rtcNewGeometry(the.device, RTC_GEOMETRY_TYPE_TRIANGLE);
    float *vb = rtcSetNewGeometryBuffer(g, RTC_BUFFER_TYPE_VERTEX, 0, RTC_FORMAT_FLOAT3,
                                        3 * sizeof(float), nv);
    uint32_t *ib = rtcSetNewGeometryBuffer(g, RTC_BUFFER_TYPE_INDEX, 0, RTC_FORMAT_UINT3,
                                           3 * sizeof(uint32_t), nt);
    if (!vb || !ib) return -1;
    memcpy(vb, v, nv * 3 * sizeof(float));
    memcpy(ib, idx, nt * 3 * sizeof(uint32_t));
    rtcCommitGeometry(g);
    unsigned id = rtcAttachGeometry(the.scene, g);
    rtcReleaseGeometry(g);
    return (int)id;
}

void oe_commit(void) { rtcCommitScene(the.scene); }

/* n rays from org along unit dirs (xyz each) to tfar: the hit distance
 * in t_out (INFINITY for none). */
void oe_cast1(const float *org, const float *dirs, size_t n, float tfar, float *t_out) {
    struct RTCIntersectContext ctx;
    rtcInitIntersectContext(&ctx);
    for (size_t i = 0; i < n; i++) {
        struct RTCRayHit rh;
        rh.ray.org_x = org[0]; rh.ray.org_y = org[1]; rh.ray.org_z = org[2];
        rh.ray.dir_x = dirs[3 * i]; rh.ray.dir_y = dirs[3 * i + 1]; rh.ray.dir_z = dirs[3 * i + 2];
        rh.ray.tnear = 0.0f; rh.ray.tfar = tfar; rh.ray.time = 0.0f;
        rh.ray.mask = 0xFFFFFFFF; rh.ray.id = 0; rh.ray.flags = 0;
        rh.hit.geomID = RTC_INVALID_GEOMETRY_ID;
        rh.hit.instID[0] = RTC_INVALID_GEOMETRY_ID;
        rtcIntersect1(the.scene, &ctx, &rh);
        t_out[i] = rh.hit.geomID == RTC_INVALID_GEOMETRY_ID ? INFINITY : rh.ray.tfar;
    }
}

/* The same in packets of eight (coherent rays: a camera's rows). */
void oe_cast8(const float *org, const float *dirs, size_t n, float tfar, float *t_out) {
    struct RTCIntersectContext ctx;
    rtcInitIntersectContext(&ctx);
    for (size_t i = 0; i < n; i += 8) {
        struct RTCRayHit8 rh __attribute__((aligned(32)));
        int valid[8] __attribute__((aligned(32)));
        for (int k = 0; k < 8; k++) {
            size_t j = i + k < n ? i + k : n - 1;
            valid[k] = i + k < n ? -1 : 0;
            rh.ray.org_x[k] = org[0]; rh.ray.org_y[k] = org[1]; rh.ray.org_z[k] = org[2];
            rh.ray.dir_x[k] = dirs[3 * j]; rh.ray.dir_y[k] = dirs[3 * j + 1]; rh.ray.dir_z[k] = dirs[3 * j + 2];
            rh.ray.tnear[k] = 0.0f; rh.ray.tfar[k] = tfar; rh.ray.time[k] = 0.0f;
            rh.ray.mask[k] = 0xFFFFFFFF; rh.ray.id[k] = 0; rh.ray.flags[k] = 0;
            rh.hit.geomID[k] = RTC_INVALID_GEOMETRY_ID;
            rh.hit.instID[0][k] = RTC_INVALID_GEOMETRY_ID;
        }
        rtcIntersect8(valid, the.scene, &ctx, &rh);
        for (int k = 0; k < 8 && i + k < n; k++)
            t_out[i + k] = rh.hit.geomID[k] == RTC_INVALID_GEOMETRY_ID ? INFINITY : rh.ray.tfar[k];
    }
}
