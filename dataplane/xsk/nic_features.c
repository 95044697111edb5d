// SPDX-License-Identifier: BSD-2-Clause
/*
 * nic_features.c - read and set one named netdev feature through the
 * ethtool ioctl; see nic_features.h.
 */
#include <errno.h>
#include <net/if.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include "nic_features.h"

static int ethtool_ioctl(const char *ifname, void *data)
{
	struct ifreq ifr = {0};
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	int ret;

	if (fd < 0)
		return -errno;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	ifr.ifr_data = data;
	ret = ioctl(fd, SIOCETHTOOL, &ifr);
	if (ret < 0)
		ret = -errno;
	close(fd);
	return ret;
}

/* The index of feature `name` in the kernel's ETH_SS_FEATURES strings,
 * and their count in *count; -errno. */
static int feature_bit(const char *ifname, const char *name, uint32_t *count)
{
	/* the header and the one count it returns for one string set */
	union {
		struct ethtool_sset_info hdr;
		uint8_t raw[sizeof(struct ethtool_sset_info) +
			    sizeof(uint32_t)];
	} info = {.hdr = {.cmd = ETHTOOL_GSSET_INFO,
			  .sset_mask = 1ULL << ETH_SS_FEATURES}};
	uint32_t len;
	struct ethtool_gstrings *gs;
	int err, bit = -ENOENT;

	err = ethtool_ioctl(ifname, &info);
	if (err < 0)
		return err;
	memcpy(&len, info.hdr.data, sizeof(len));
	if (!info.hdr.sset_mask || !len)
		return -EOPNOTSUPP;
	*count = len;
	gs = calloc(1, sizeof(*gs) + (size_t)len * ETH_GSTRING_LEN);
	if (!gs)
		return -ENOMEM;
	gs->cmd = ETHTOOL_GSTRINGS;
	gs->string_set = ETH_SS_FEATURES;
	gs->len = len;
	err = ethtool_ioctl(ifname, gs);
	for (uint32_t i = 0; err >= 0 && i < gs->len; i++) {
		const char *s = (const char *)gs->data + i * ETH_GSTRING_LEN;

		if (!strncmp(s, name, ETH_GSTRING_LEN)) {
			bit = (int)i;
			break;
		}
	}
	free(gs);
	return err < 0 ? err : bit;
}

#define FEATURE_BLOCKS_MAX 8 /* 256 features; the kernel has < 128 */

/* The features' blocks (32 each) and how many the kernel has, which is
 * the size ETHTOOL_SFEATURES requires. */
struct feature_words {
	uint32_t words;
	struct ethtool_get_features_block b[FEATURE_BLOCKS_MAX];
};

static int read_words(const char *ifname, struct feature_words *fw)
{
	union {
		struct ethtool_gfeatures hdr;
		uint8_t raw[sizeof(struct ethtool_gfeatures) +
			    FEATURE_BLOCKS_MAX *
				    sizeof(struct ethtool_get_features_block)];
	} gf = {.hdr = {.cmd = ETHTOOL_GFEATURES, .size = FEATURE_BLOCKS_MAX}};
	int err = ethtool_ioctl(ifname, &gf);

	if (err < 0)
		return err;
	/* the kernel writes its own word count into size */
	if (!gf.hdr.size || gf.hdr.size > FEATURE_BLOCKS_MAX)
		return -ERANGE;
	fw->words = gf.hdr.size;
	memcpy(fw->b, gf.hdr.features, fw->words * sizeof(fw->b[0]));
	return 0;
}

static int read_feature(const char *ifname, struct nic_feature *f,
			uint32_t *words)
{
	struct feature_words fw;
	uint32_t blk = (uint32_t)f->bit / 32, mask = 1U << (f->bit % 32);
	int err = read_words(ifname, &fw);

	if (err < 0)
		return err;
	if (blk >= fw.words)
		return -ERANGE;
	f->active = fw.b[blk].active & mask;
	f->changeable = (fw.b[blk].available & mask) &&
			!(fw.b[blk].never_changed & mask);
	if (words)
		*words = fw.words;
	return 0;
}

int nic_feature_get(const char *ifname, const char *name, struct nic_feature *f)
{
	uint32_t count = 0;
	int bit = feature_bit(ifname, name, &count);

	*f = (struct nic_feature){.bit = -1};
	if (bit < 0)
		return bit;
	f->bit = bit;
	return read_feature(ifname, f, NULL);
}

int nic_feature_set(const char *ifname, struct nic_feature *f, bool on)
{
	union {
		struct ethtool_sfeatures hdr;
		uint8_t raw[sizeof(struct ethtool_sfeatures) +
			    FEATURE_BLOCKS_MAX *
				    sizeof(struct ethtool_set_features_block)];
	} sf = {.hdr = {.cmd = ETHTOOL_SFEATURES}};
	uint32_t blk = (uint32_t)f->bit / 32, mask = 1U << (f->bit % 32);
	uint32_t words = 0;
	int err;

	if (f->bit < 0)
		return -ERANGE;
	err = read_feature(ifname, f, &words);
	if (err < 0)
		return err;
	sf.hdr.size = words;
	sf.hdr.features[blk].valid = mask;
	sf.hdr.features[blk].requested = on ? mask : 0;
	/* > 0: ETHTOOL_F_WISH / _UNSUPPORTED, the read below tells */
	err = ethtool_ioctl(ifname, &sf);
	if (err < 0)
		return err;
	err = read_feature(ifname, f, NULL);
	if (err < 0)
		return err;
	return f->active == on ? 0 : -EOPNOTSUPP;
}
