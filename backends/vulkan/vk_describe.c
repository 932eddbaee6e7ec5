/* describe: the device's identity, limits, timing and float environment,
 * as recorded with every run. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "backends/vulkan/vk_internal.h"

#define VENDOR_NVIDIA 0x10DEu

void vk_driver_version_string(uint32_t vendor, uint32_t v, char *buf, size_t n) {
  if (vendor == VENDOR_NVIDIA) /* 10.8.8.6 bits */
    snprintf(buf, n, "%u.%u.%u.%u", (v >> 22) & 0x3ffu, (v >> 14) & 0xffu, (v >> 6) & 0xffu,
             v & 0x3fu);
  else /* the Vulkan convention (Mesa, AMD, Intel on Linux): 10.10.12 bits */
    snprintf(buf, n, "%u.%u.%u", v >> 22, (v >> 12) & 0x3ffu, v & 0xfffu);
}

static void hex(char *out, const uint8_t *bytes, size_t n) {
  for (size_t i = 0; i < n; i++) snprintf(out + 2 * i, 3, "%02x", bytes[i]);
}

/* Appends one "key=value\n" line to info->extra (cut at its size). */
static void extra(vc_device_info *info, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void extra(vc_device_info *info, const char *key, const char *fmt, ...) {
  size_t used = strlen(info->extra);
  if (used + 1 >= sizeof info->extra) return;
  int k = snprintf(info->extra + used, sizeof info->extra - used, "%s=", key);
  if (k < 0 || used + (size_t)k >= sizeof info->extra) return;
  used += (size_t)k;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(info->extra + used, sizeof info->extra - used, fmt, ap);
  va_end(ap);
  used = strlen(info->extra);
  if (used + 1 < sizeof info->extra) {
    info->extra[used] = '\n';
    info->extra[used + 1] = '\0';
  }
}

static const char *device_type(VkPhysicalDeviceType t) {
  switch (t) {
  case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return "integrated-gpu";
  case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return "discrete-gpu";
  case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return "virtual-gpu";
  case VK_PHYSICAL_DEVICE_TYPE_CPU: return "cpu";
  default: return "other";
  }
}

static const char *independence(VkShaderFloatControlsIndependence i) {
  switch (i) {
  case VK_SHADER_FLOAT_CONTROLS_INDEPENDENCE_32_BIT_ONLY: return "32-bit-only";
  case VK_SHADER_FLOAT_CONTROLS_INDEPENDENCE_ALL: return "all";
  case VK_SHADER_FLOAT_CONTROLS_INDEPENDENCE_NONE: return "none";
  default: return "unknown";
  }
}

static void describe_float_env(const vc_dev *dev, vc_device_info *info) {
  const vk_float_caps *fc = &dev->fc;
  /* Without the request the device's default applies, which Vulkan leaves open. */
  const char *denorm = dev->denorm_preserve ? "preserve" : "device-default";
  const char *request = dev->denorm_preserve ? "DenormPreserve32" : "none";
  if (!fc->known) {
    snprintf(info->float_env, sizeof info->float_env,
             "denorm32=%s request=%s float_controls=unknown", denorm, request);
    return;
  }
  snprintf(info->float_env, sizeof info->float_env,
           "denorm32=%s request=%s preserve32=%d ftz32=%d rte32=%d rtz32=%d denorm_indep=%s "
           "round_indep=%s",
           denorm, request, fc->preserve32, fc->ftz32, fc->rte32, fc->rtz32,
           independence(fc->denorm_indep), independence(fc->round_indep));
}

static uint64_t device_local_bytes(const vc_dev *dev) {
  uint64_t best = 0;
  for (uint32_t i = 0; i < dev->mem.memoryHeapCount; i++)
    if ((dev->mem.memoryHeaps[i].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT) &&
        dev->mem.memoryHeaps[i].size > best)
      best = dev->mem.memoryHeaps[i].size;
  return best;
}

static void describe_identity(const vc_dev *dev, const vk_props *p, vc_device_info *info) {
  const VkPhysicalDeviceProperties *d = &dev->props;
  snprintf(info->api, sizeof info->api, "vulkan");
  snprintf(info->api_version, sizeof info->api_version, "%u.%u.%u",
           VK_API_VERSION_MAJOR(d->apiVersion), VK_API_VERSION_MINOR(d->apiVersion),
           VK_API_VERSION_PATCH(d->apiVersion));
  char ver[64];
  vk_driver_version_string(d->vendorID, d->driverVersion, ver, sizeof ver);
  if (p->has_driver) {
    snprintf(info->driver_name, sizeof info->driver_name, "%s", p->driver.driverName);
    snprintf(info->driver_version, sizeof info->driver_version, "%s%s%s%s", ver,
             p->driver.driverInfo[0] ? " (" : "", p->driver.driverInfo,
             p->driver.driverInfo[0] ? ")" : "");
  } else {
    snprintf(info->driver_name, sizeof info->driver_name, "vendor 0x%04x", d->vendorID);
    snprintf(info->driver_version, sizeof info->driver_version, "%s", ver);
  }
  info->vendor_id = d->vendorID;
  info->device_id = d->deviceID;
  snprintf(info->device_name, sizeof info->device_name, "%s", d->deviceName);
  if (d->apiVersion >= VK_API_VERSION_1_1) hex(info->uuid, p->id.deviceUUID, VK_UUID_SIZE);
}

static void describe_limits(const vc_dev *dev, vc_device_info *info) {
  const VkPhysicalDeviceLimits *l = &dev->props.limits;
  info->compute_units = dev->cores.units; /* 0: no vendor extension says */
  info->max_workgroup_invocations = l->maxComputeWorkGroupInvocations;
  for (int a = 0; a < 3; a++) {
    info->max_workgroup_size[a] = l->maxComputeWorkGroupSize[a];
    info->max_grid[a] = l->maxComputeWorkGroupCount[a];
  }
  info->max_shared_bytes = l->maxComputeSharedMemorySize;
  info->max_buffer_bytes = l->maxStorageBufferRange;
  info->global_mem_bytes = device_local_bytes(dev);
  info->timestamps = dev->timestamp_bits > 0;
  info->cooperative = false;
}

static void describe_extra(const vc_dev *dev, const vk_props *p, vc_device_info *info) {
  const VkPhysicalDeviceProperties *d = &dev->props;
  const VkPhysicalDeviceLimits *l = &d->limits;
  char h[2 * VK_UUID_SIZE + 1] = "";
  extra(info, "instance_api_version", "%u.%u.%u", VK_API_VERSION_MAJOR(dev->instance_version),
        VK_API_VERSION_MINOR(dev->instance_version), VK_API_VERSION_PATCH(dev->instance_version));
  extra(info, "device_type", "%s", device_type(d->deviceType));
  extra(info, "driver_version_raw", "0x%08x", d->driverVersion);
  if (p->has_driver) {
    const VkConformanceVersion *c = &p->driver.conformanceVersion;
    extra(info, "driver_id", "%d", (int)p->driver.driverID);
    extra(info, "driver_info", "%s", p->driver.driverInfo);
    extra(info, "conformance_version", "%u.%u.%u.%u", c->major, c->minor, c->subminor, c->patch);
  }
  hex(h, d->pipelineCacheUUID, VK_UUID_SIZE);
  extra(info, "pipeline_cache_uuid", "%s", h);
  if (d->apiVersion >= VK_API_VERSION_1_1) {
    hex(h, p->id.deviceUUID, VK_UUID_SIZE);
    extra(info, "device_uuid", "%s", h);
    hex(h, p->id.driverUUID, VK_UUID_SIZE);
    extra(info, "driver_uuid", "%s", h);
    extra(info, "subgroup_size", "%u", p->subgroup.subgroupSize);
    extra(info, "max_memory_allocation_size", "%llu",
          (unsigned long long)p->maint3.maxMemoryAllocationSize);
  }
  extra(info, "max_compute_work_group_count", "%u,%u,%u", l->maxComputeWorkGroupCount[0],
        l->maxComputeWorkGroupCount[1], l->maxComputeWorkGroupCount[2]);
  extra(info, "max_compute_work_group_size", "%u,%u,%u", l->maxComputeWorkGroupSize[0],
        l->maxComputeWorkGroupSize[1], l->maxComputeWorkGroupSize[2]);
  extra(info, "max_compute_work_group_invocations", "%u", l->maxComputeWorkGroupInvocations);
  extra(info, "max_compute_shared_memory_size", "%u", l->maxComputeSharedMemorySize);
  extra(info, "max_storage_buffer_range", "%u", l->maxStorageBufferRange);
  extra(info, "max_per_stage_descriptor_storage_buffers", "%u",
        l->maxPerStageDescriptorStorageBuffers);
  extra(info, "compute_units_from", "%s", dev->cores.source);
  extra(info, "threads_per_compute_unit", "%u", dev->cores.threads_per_unit);
  extra(info, "queue_family", "%u", dev->queue_family);
  extra(info, "timestamp_period_ns", "%.9g", (double)l->timestampPeriod);
  extra(info, "timestamp_valid_bits", "%u", dev->timestamp_bits);
  extra(info, "timing", "%s", dev->timestamp_bits ? "device-timestamps" : "host-only");
  extra(info, "denorm_preserve_requested", "%s", dev->denorm_preserve ? "yes" : "no");
  /* what u64/i64 programs need (vk_limits.c refuses them without) */
  extra(info, "shader_int64", "%s", dev->int64.ints ? "yes" : "no");
  extra(info, "shader_buffer_int64_atomics", "%s", dev->int64.buffer_atomics ? "yes" : "no");
  extra(info, "shader_shared_int64_atomics", "%s", dev->int64.shared_atomics ? "yes" : "no");
}

/* What native kernels get on this device (docs/native.md). */
static void describe_native(const vc_dev *dev, vc_device_info *info) {
  const vk_options *o = &dev->opt;
  vk_target t = vk_native_target(dev);
  extra(info, "vulkan_memory_model", "%s", dev->vmm_available ? "yes" : "no");
  extra(info, "native_ordering", "%s", vk_native_ordering(dev));
  extra(info, "native_gridbar", "%s", vc_gridbar_name((vc_gridbar)dev->opt.gridbar));
  extra(info, "native_segments", "%s",
        vc_kv_choice_name(vc_native_segments_choices, dev->opt.loop_segments));
  extra(info, "native_discovery", "%s",
        vc_kv_choice_name(vc_native_discovery_choices, dev->opt.discover_cas));
  extra(info, "native_spirv", "1.%u", (t.spirv >> 8) & 0xffu);
  extra(info, "native_wgs", "%u", o->native_wgs);
  extra(info, "native_cap", "%u", o->ctrl.cap);
  extra(info, "native_window", "%u", o->ctrl.window);
  extra(info, "native_spin", "%u", o->ctrl.spin_limit);
  extra(info, "deadline_s", "%u", o->deadline_s);
}

int vk_describe(vc_dev *dev, vc_device_info *info, vc_error *err) {
  (void)err;
  memset(info, 0, sizeof *info);
  vk_props p;
  vk_props_query(dev->phys, &p);
  describe_identity(dev, &p, info);
  describe_limits(dev, info);
  describe_float_env(dev, info);
  describe_extra(dev, &p, info);
  describe_native(dev, info);
  return 0;
}
